import { useState } from 'preact/hooks';
import { api, get, type Page, request } from '../api';
import { formatNumber } from '../format';
import { Link, navigate, useLocation } from '../router';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Select, Status, useLoad } from '../ui';
import type { PronunciationDictionary, PronunciationEntry } from '../types';

const PAGE_SIZE = 50;
const countEntries = (count: number) => `${formatNumber(count)} ${count === 1 ? 'entry' : 'entries'}`;
const path = (id: string, suffix = '') => `pronunciation-dictionaries/${id}/${suffix}`;

/** Saves a response's bytes under `name` (the export wants the Authorization header, so no plain link can fetch it). */
async function download(response: Response, name: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function AddEntry({
  dictionary,
  onAdded,
}: {
  dictionary: PronunciationDictionary;
  onAdded: (message: string) => void;
}) {
  const [grapheme, setGrapheme] = useState('');
  const [alias, setAlias] = useState('');
  const [phoneme, setPhoneme] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const add = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api('POST', path(dictionary.id, 'entries/'), {
        body: {
          grapheme,
          ...(alias.trim() ? { alias } : {}),
          ...(phoneme.trim() ? { phoneme } : {}),
          case_sensitive: caseSensitive,
        },
      });
      onAdded(`“${grapheme.trim()}” added.`);
      setGrapheme('');
      setAlias('');
      setPhoneme('');
      setCaseSensitive(false);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={add} aria-labelledby="add-entry">
      <h3 id="add-entry">Add a word</h3>
      <div class="inline-form">
        <Field
          label="Written form"
          value={grapheme}
          onInput={(event) => setGrapheme(event.currentTarget.value)}
          maxLength={100}
          required
          hint="A word as it appears in your text, e.g. OpenVox."
        />
        <Field
          label="Say it as"
          value={alias}
          onInput={(event) => setAlias(event.currentTarget.value)}
          maxLength={500}
          hint="What to say instead, e.g. open voice box."
        />
        <Field
          label="IPA (optional)"
          value={phoneme}
          onInput={(event) => setPhoneme(event.currentTarget.value)}
          maxLength={500}
          hint="Kept in the dictionary and its PLS export; engines say the alias."
        />
      </div>
      <div class="field check">
        <input
          id="entry-case"
          type="checkbox"
          checked={caseSensitive}
          onChange={(event) => setCaseSensitive(event.currentTarget.checked)}
        />
        <label for="entry-case">Match the case exactly</label>
      </div>
      <ErrorMessage error={error} />
      <button type="submit" class="primary">
        Add word
      </button>
    </form>
  );
}

function ImportPls({
  dictionary,
  onImported,
}: {
  dictionary: PronunciationDictionary;
  onImported: (message: string) => void;
}) {
  const [mode, setMode] = useState('append');
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event & { currentTarget: HTMLFormElement }) => {
    event.preventDefault();
    setError(null);
    const form = event.currentTarget;
    const file = (form.elements.namedItem('pls') as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      const updated = await api<PronunciationDictionary>('POST', `${path(dictionary.id, 'import/')}?mode=${mode}`, {
        body: { pls: await file.text() },
      });
      form.reset();
      onImported(`Imported ${file.name}: the dictionary has ${countEntries(updated.entry_count)}.`);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="import-pls">
      <h3 id="import-pls">Import a PLS file</h3>
      <p class="hint">A W3C Pronunciation Lexicon (PLS 1.0, IPA), as other speech services export them.</p>
      <div class="inline-form">
        <Field
          label="PLS file"
          name="pls"
          type="file"
          accept=".pls,.xml,application/pls+xml,application/xml,text/xml"
          required
        />
        <Select
          label="Entries already here"
          value={mode}
          onChange={(event) => setMode(event.currentTarget.value)}
          options={[
            ['append', 'Keep them, add the file’s'],
            ['replace', 'Replace them with the file’s'],
          ]}
        />
        <button type="submit">Import</button>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}

function Dictionary({ id }: { id: string }) {
  const [page, setPage] = useState(1);
  const dictionary = useLoad((signal) => get<PronunciationDictionary>(path(id), signal), [id]);
  const entries = useLoad(
    (signal) => get<Page<PronunciationEntry>>(`${path(id, 'entries/')}?page=${page}&page_size=${PAGE_SIZE}`, signal),
    [id, page],
  );
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const changed = (text: string) => {
    setMessage(text);
    dictionary.reload();
    entries.reload();
  };
  const remove = async (entry: PronunciationEntry) => {
    await api('DELETE', path(id, `entries/${entry.id}/`));
    changed(`“${entry.graphemes.join(', ')}” removed.`);
  };
  const exportPls = async () => {
    setError(null);
    try {
      await download(
        await request('GET', path(id, 'export/')),
        `${(dictionary.data?.name ?? 'dictionary').replace(/[^\p{L}\p{N}._-]+/gu, '-')}.pls`,
      );
    } catch (failure) {
      setError(failure);
    }
  };
  const data = dictionary.data;
  return (
    <>
      <p>
        <Link href="/app/dictionaries">All dictionaries</Link>
      </p>
      <ErrorMessage error={dictionary.error ?? entries.error ?? error} />
      {data && (
        <>
          <PageTitle>{`Dictionary: ${data.name}`}</PageTitle>
          <p class="meta">
            {data.language} · {countEntries(data.entry_count)} ·{' '}
            {data.project_id ? 'for one project' : 'for all your syntheses'}
          </p>
          <div class="actions">
            <button type="button" onClick={exportPls}>
              Export PLS
            </button>
          </div>
          {message && <Status>{message}</Status>}
          <AddEntry dictionary={data} onAdded={changed} />
          <h2>Words</h2>
          {entries.data && entries.data.count === 0 && <p>No words yet.</p>}
          {entries.data && entries.data.results.length > 0 && (
            <div class="table-wrap">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Written form</th>
                    <th scope="col">Said as</th>
                    <th scope="col">IPA</th>
                    <th scope="col">Case</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {entries.data.results.map((entry) => (
                    <tr key={entry.id}>
                      <th scope="row">{entry.graphemes.join(', ')}</th>
                      <td data-label="Said as">{entry.alias ?? '—'}</td>
                      <td data-label="IPA">{entry.phoneme ?? '—'}</td>
                      <td data-label="Case">{entry.case_sensitive ? 'exact' : 'any'}</td>
                      <td>
                        <ConfirmButton
                          label="Remove"
                          accessibleLabel={`Remove ${entry.graphemes.join(', ')}`}
                          question={`Remove “${entry.graphemes.join(', ')}” from the dictionary?`}
                          confirmLabel="Remove word"
                          onConfirm={() => remove(entry)}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {entries.data && <Pager page={page} count={entries.data.count} pageSize={PAGE_SIZE} onPage={setPage} />}
          <ImportPls dictionary={data} onImported={changed} />
        </>
      )}
    </>
  );
}

function DictionaryList() {
  const dictionaries = useLoad(
    (signal) => get<Page<PronunciationDictionary>>('pronunciation-dictionaries/?page_size=100', signal),
    [],
  );
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en-US');
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setMessage(null);
    try {
      const created = await api<PronunciationDictionary>('POST', 'pronunciation-dictionaries/', {
        body: { name, language },
      });
      navigate(`/app/dictionaries?id=${created.id}`);
    } catch (failure) {
      setError(failure);
    }
  };
  const remove = async (dictionary: PronunciationDictionary) => {
    await api('DELETE', path(dictionary.id));
    setMessage(`Dictionary “${dictionary.name}” deleted.`);
    dictionaries.reload();
  };
  return (
    <>
      <PageTitle>Dictionaries</PageTitle>
      <p>
        Words said your way: a dictionary replaces a written form with what to say (“OpenVox” → “open voice box”). Your
        dictionaries apply to every synthesis unless the request names others (<code>pronunciation_dictionary_ids</code>
        ).
      </p>
      <form onSubmit={create} class="inline-form">
        <Field
          label="Dictionary name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
          maxLength={100}
          required
        />
        <Field
          label="Language"
          value={language}
          onInput={(event) => setLanguage(event.currentTarget.value)}
          maxLength={35}
          required
          hint="A language tag such as en-US."
        />
        <button type="submit" class="primary">
          Create dictionary
        </button>
      </form>
      <ErrorMessage error={error ?? dictionaries.error} />
      {message && <Status>{message}</Status>}
      {dictionaries.data && dictionaries.data.count === 0 && <p>No dictionaries yet.</p>}
      <ul class="entries">
        {dictionaries.data?.results.map((dictionary) => (
          <li key={dictionary.id} class="entry">
            <h2 class="entry-title">{dictionary.name}</h2>
            <p class="meta">
              {dictionary.language} · {countEntries(dictionary.entry_count)}
            </p>
            <div class="actions">
              <Link
                class="button"
                href={`/app/dictionaries?id=${dictionary.id}`}
                aria-label={`Open ${dictionary.name}`}
              >
                Open
              </Link>
              <ConfirmButton
                label="Delete"
                accessibleLabel={`Delete ${dictionary.name}`}
                question={`Delete the dictionary “${dictionary.name}” and its ${countEntries(dictionary.entry_count)}?`}
                confirmLabel="Delete dictionary"
                onConfirm={() => remove(dictionary)}
              />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Pronunciation dictionaries: the list, or one dictionary (`?id=`) with its words, PLS import and export. */
export function Dictionaries() {
  const { query } = useLocation();
  const id = query.get('id');
  return id ? <Dictionary id={id} /> : <DictionaryList />;
}
