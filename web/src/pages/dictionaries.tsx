import { useState } from 'preact/hooks';
import { api, get, type Page, request, saveResponse } from '../api';
import { InlineForm } from '../components/forms';
import { EntryCard, EntryList, RecordTable } from '../components/lists';
import { formatNumber } from '../format';
import { useAction, usePagedLoad, useLoad, useSubmit } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Select, Status } from '../ui';
import type { PronunciationDictionary, PronunciationEntry } from '../types';

const PAGE_SIZE = 50;
const countEntries = (count: number) => `${formatNumber(count)} ${count === 1 ? 'entry' : 'entries'}`;
const path = (id: string, suffix = '') => `pronunciation-dictionaries/${id}/${suffix}`;

/** A form that changes a dictionary; `onChanged` says how, for the page's status line. */
interface EditProps {
  dictionary: PronunciationDictionary;
  onChanged: (message: string) => void;
}

function AddEntry({ dictionary, onChanged }: EditProps) {
  const [grapheme, setGrapheme] = useState('');
  const [alias, setAlias] = useState('');
  const [phoneme, setPhoneme] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const add = useSubmit(async () => {
    await api('POST', path(dictionary.id, 'entries/'), {
      body: {
        grapheme,
        ...(alias.trim() ? { alias } : {}),
        ...(phoneme.trim() ? { phoneme } : {}),
        case_sensitive: caseSensitive,
      },
    });
    onChanged(`“${grapheme.trim()}” added.`);
    setGrapheme('');
    setAlias('');
    setPhoneme('');
    setCaseSensitive(false);
  });
  return (
    <form onSubmit={add.onSubmit} aria-labelledby="add-entry">
      <h3 id="add-entry">Add a word</h3>
      <div class="inline-form top-aligned">
        <Field
          label="Written form"
          value={grapheme}
          onValue={setGrapheme}
          maxLength={100}
          required
          hint="A word as it appears in your text, e.g. OpenVox."
        />
        <Field
          label="Say it as"
          value={alias}
          onValue={setAlias}
          maxLength={500}
          hint="What to say instead, e.g. open voice box."
        />
        <Field
          label="IPA (optional)"
          value={phoneme}
          onValue={setPhoneme}
          maxLength={500}
          hint="How to say it in IPA, e.g. ˈoʊpən vɔɪs. Piper and eSpeak voices say it; the others say the alias, else the written form. Give the alias, the IPA or both."
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
      <ErrorMessage error={add.error} />
      <button type="submit" class="primary">
        Add word
      </button>
    </form>
  );
}

function ImportPls({ dictionary, onChanged }: EditProps) {
  const [mode, setMode] = useState('append');
  const submit = useSubmit(async (form) => {
    const file = (form.elements.namedItem('pls') as HTMLInputElement).files?.[0];
    if (!file) return;
    const updated = await api<PronunciationDictionary>('POST', `${path(dictionary.id, 'import/')}?mode=${mode}`, {
      body: { pls: await file.text() },
    });
    form.reset();
    onChanged(`Imported ${file.name}: the dictionary has ${countEntries(updated.entry_count)}.`);
  });
  return (
    <form onSubmit={submit.onSubmit} aria-labelledby="import-pls">
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
          onValue={setMode}
          options={[
            ['append', 'Keep them, add the file’s'],
            ['replace', 'Replace them with the file’s'],
          ]}
        />
        <button type="submit">Import</button>
      </div>
      <ErrorMessage error={submit.error} />
    </form>
  );
}

function Dictionary({ id }: { id: string }) {
  const dictionary = useLoad((signal) => get<PronunciationDictionary>(path(id), signal), [id]);
  const entries = usePagedLoad<PronunciationEntry>(path(id, 'entries/'), PAGE_SIZE);
  const [message, setMessage] = useState<string | null>(null);
  const changed = (text: string) => {
    setMessage(text);
    dictionary.reload();
    entries.reload();
  };
  const remove = async (entry: PronunciationEntry) => {
    await api('DELETE', path(id, `entries/${entry.id}/`));
    changed(`“${entry.graphemes.join(', ')}” removed.`);
  };
  const exportPls = useAction(async () =>
    saveResponse(
      await request('GET', path(id, 'export/')),
      `${(dictionary.data?.name ?? 'dictionary').replace(/[^\p{L}\p{N}._-]+/gu, '-')}.pls`,
    ),
  );
  const data = dictionary.data;
  return (
    <>
      <p>
        <Link href="/app/dictionaries">All dictionaries</Link>
      </p>
      <ErrorMessage error={dictionary.error ?? entries.error ?? exportPls.error} />
      {data && (
        <>
          <PageTitle>{`Dictionary: ${data.name}`}</PageTitle>
          <p class="meta">
            {data.language} · {countEntries(data.entry_count)} ·{' '}
            {data.project_id ? 'for one project' : 'for all your syntheses'}
          </p>
          <div class="actions">
            <button type="button" onClick={() => exportPls.run()}>
              Export PLS
            </button>
          </div>
          {message && <Status>{message}</Status>}
          <AddEntry dictionary={data} onChanged={changed} />
          <h2>Words</h2>
          {entries.data && entries.data.count === 0 && <p>No words yet.</p>}
          <RecordTable
            records={entries.data?.results}
            columns={[
              { title: 'Written form', cell: (entry) => entry.graphemes.join(', ') },
              { title: 'Said as', cell: (entry) => entry.alias ?? '—' },
              { title: 'IPA', cell: (entry) => entry.phoneme ?? '—' },
              { title: 'Case', cell: (entry) => (entry.case_sensitive ? 'exact' : 'any') },
            ]}
            actions={(entry) => (
              <ConfirmButton
                label="Remove"
                subject={entry.graphemes.join(', ')}
                question={`Remove “${entry.graphemes.join(', ')}” from the dictionary?`}
                confirmLabel="Remove word"
                onConfirm={() => remove(entry)}
              />
            )}
          />
          <Pager {...entries.pager} />
          <ImportPls dictionary={data} onChanged={changed} />
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
  const [message, setMessage] = useState<string | null>(null);
  const create = useSubmit(async () => {
    setMessage(null);
    const created = await api<PronunciationDictionary>('POST', 'pronunciation-dictionaries/', {
      body: { name, language },
    });
    navigate(`/app/dictionaries?id=${created.id}`);
  });
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
      <InlineForm submit={create} label="Create dictionary">
        <Field label="Dictionary name" value={name} onValue={setName} maxLength={100} required />
        <Field
          label="Language"
          value={language}
          onValue={setLanguage}
          maxLength={35}
          required
          hint="A language tag such as en-US."
        />
      </InlineForm>
      <ErrorMessage error={dictionaries.error} />
      {message && <Status>{message}</Status>}
      {dictionaries.data && dictionaries.data.count === 0 && <p>No dictionaries yet.</p>}
      <EntryList records={dictionaries.data?.results}>
        {(dictionary) => (
          <EntryCard
            title={dictionary.name}
            meta={`${dictionary.language} · ${countEntries(dictionary.entry_count)}`}
            actions={
              <>
                <Link
                  class="button"
                  href={`/app/dictionaries?id=${dictionary.id}`}
                  aria-label={`Open ${dictionary.name}`}
                >
                  Open
                </Link>
                <ConfirmButton
                  label="Delete"
                  subject={dictionary.name}
                  question={`Delete the dictionary “${dictionary.name}” and its ${countEntries(dictionary.entry_count)}?`}
                  confirmLabel="Delete dictionary"
                  onConfirm={() => remove(dictionary)}
                />
              </>
            }
          />
        )}
      </EntryList>
    </>
  );
}

/** Pronunciation dictionaries: the list, or one dictionary (`?id=`) with its words, PLS import and export. */
export function Dictionaries() {
  const { query } = useLocation();
  const id = query.get('id');
  return id ? <Dictionary id={id} /> : <DictionaryList />;
}
