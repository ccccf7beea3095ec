import { useRef, useState } from 'preact/hooks';
import { api, get, type Page } from '../api';
import { formatDate } from '../format';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status, useLoad } from '../ui';
import type { ApiKey } from '../types';

const PAGE_SIZE = 20;

/** A copy button for a text; without clipboard permission (e.g. plain http) it selects `fallback` for Ctrl+C. */
function CopyButton({
  text,
  label,
  fallback,
  accessibleLabel,
}: {
  text: string;
  label: string;
  fallback: () => void;
  accessibleLabel?: string;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied to the clipboard.');
    } catch {
      fallback();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };
  return (
    <>
      <button type="button" aria-label={accessibleLabel} onClick={copy}>
        {label}
      </button>
      {copied && <Status>{copied}</Status>}
    </>
  );
}

/** Ready-to-paste ways to use a key from here: the base URL is this site's. */
function keySnippets(origin: string, key: string): { id: string; title: string; code: string }[] {
  const input = 'Hello from OpenVox!';
  return [
    {
      id: 'curl',
      title: 'curl',
      code: `curl -fsS ${origin}/v1/audio/speech \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "tts-1", "voice": "alloy", "input": "${input}"}' \\
  -o hello.mp3`,
    },
    {
      id: 'python',
      title: 'OpenAI SDK (Python)',
      code: `from openai import OpenAI

client = OpenAI(base_url="${origin}/v1", api_key="${key}")
client.audio.speech.create(model="tts-1", voice="alloy", input="${input}").write_to_file("hello.mp3")`,
    },
    {
      id: 'node',
      title: 'OpenAI SDK (Node.js)',
      code: `import OpenAI from 'openai';
import { writeFile } from 'node:fs/promises';

const openai = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' });
const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: '${input}' });
await writeFile('hello.mp3', Buffer.from(await speech.arrayBuffer()));`,
    },
    {
      id: 'cli',
      title: 'openvox CLI',
      code: `export OPENVOX_URL=${origin}
export OPENVOX_API_KEY=${key}
openvox say "${input}" -o hello.wav`,
    },
  ];
}

function Snippet({ id, title, code }: { id: string; title: string; code: string }) {
  const pre = useRef<HTMLPreElement>(null);
  const select = () => {
    const range = document.createRange();
    if (!pre.current) return;
    range.selectNodeContents(pre.current);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
  };
  return (
    <div class="snippet">
      <div class="snippet-head">
        <h4 id={`snippet-${id}`}>{title}</h4>
        <CopyButton text={code} label="Copy" accessibleLabel={`Copy the ${title} example`} fallback={select} />
      </div>
      <pre ref={pre} aria-labelledby={`snippet-${id}`} tabIndex={0}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

/** The new key, shown once: the API keeps only its hash. */
function NewKey({ created, onDone }: { created: ApiKey; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <section class="notice" aria-labelledby="new-key">
      <h2 id="new-key">Your new key “{created.name}”</h2>
      <p>Copy it now: it is shown only once. Anyone with this key can use your account.</p>
      <div class="copy">
        <label for="new-key-value" class="visually-hidden">
          API key
        </label>
        <input
          id="new-key-value"
          ref={input}
          readOnly
          value={created.key}
          class="mono"
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={created.key!} label="Copy" fallback={() => input.current?.select()} />
      </div>
      <h3>Try it</h3>
      <p>
        These examples hold the key and this server’s address: paste one into a terminal or a program. Each says “Hello
        from OpenVox!” into a file, for 19 credits. The <a href="/api/docs/">API reference</a> has every endpoint.
      </p>
      {keySnippets(location.origin, created.key!).map((snippet) => (
        <Snippet key={snippet.id} {...snippet} />
      ))}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export function ApiKeys() {
  const [page, setPage] = useState(1);
  const keys = useLoad(
    (signal) => get<Page<ApiKey>>(`auth/api-keys/?page=${page}&page_size=${PAGE_SIZE}`, signal),
    [page],
  );
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setMessage(null);
    try {
      setCreated(await api<ApiKey>('POST', 'auth/api-keys/', { body: { name } }));
      setName('');
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const revoke = async (key: ApiKey) => {
    await api('DELETE', `auth/api-keys/${key.id}/`);
    setMessage(`Key “${key.name}” revoked: requests with it now fail.`);
    keys.reload();
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p>
        API keys let programs use your account: send one as <code>Authorization: Bearer vk_…</code>. They work until you
        revoke them.
      </p>
      {created ? (
        <NewKey created={created} onDone={() => setCreated(null)} />
      ) : (
        <form onSubmit={create} class="inline-form">
          <Field
            label="Key name"
            name="name"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            maxLength={100}
            required
            hint="For example the program or server that will use it."
          />
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
      )}
      <ErrorMessage error={error} />
      {message && <Status>{message}</Status>}
      <h2>Your keys</h2>
      <ErrorMessage error={keys.error} />
      {keys.data && keys.data.count === 0 && <p>No keys yet.</p>}
      {keys.data && keys.data.results.length > 0 && (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.results.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td class="mono" data-label="Prefix">
                    {key.prefix}…
                  </td>
                  <td data-label="Created">{formatDate(key.created_at)}</td>
                  <td data-label="Last used">{formatDate(key.last_used_at)}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      accessibleLabel={`Revoke ${key.name}`}
                      question={`Revoke the key “${key.name}”? Programs using it stop working at once.`}
                      confirmLabel="Revoke key"
                      onConfirm={() => revoke(key)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {keys.data && <Pager page={page} count={keys.data.count} pageSize={PAGE_SIZE} onPage={setPage} />}
    </>
  );
}
