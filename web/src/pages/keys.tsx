import { useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { formatDate } from '../format';
import { InlineForm } from '../components/forms';
import { RecordTable } from '../components/lists';
import { usePagedLoad, useSubmit } from '../hooks';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status } from '../ui';
import type { ApiKey } from '../types';

const PAGE_SIZE = 20;

/** A copy button for a text; without clipboard permission (e.g. plain http) it selects `fallback` for Ctrl+C. */
export function CopyButton({
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
  const keys = usePagedLoad<ApiKey>('auth/api-keys/', PAGE_SIZE);
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);

  const create = useSubmit(async () => {
    setMessage(null);
    setCreated(await api<ApiKey>('POST', 'auth/api-keys/', { body: { name } }));
    setName('');
    keys.reload();
  });
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
        <InlineForm submit={create} label="Create key">
          <Field
            label="Key name"
            name="name"
            value={name}
            onValue={setName}
            maxLength={100}
            required
            hint="For example the program or server that will use it."
          />
        </InlineForm>
      )}
      {message && <Status>{message}</Status>}
      <h2>Your keys</h2>
      <ErrorMessage error={keys.error} />
      {keys.data && keys.data.count === 0 && <p>No keys yet.</p>}
      <RecordTable
        records={keys.data?.results}
        columns={[
          { title: 'Name', cell: (key) => key.name },
          { title: 'Prefix', cell: (key) => `${key.prefix}…`, class: 'mono' },
          { title: 'Created', cell: (key) => formatDate(key.created_at) },
          { title: 'Last used', cell: (key) => formatDate(key.last_used_at) },
        ]}
        actions={(key) => (
          <ConfirmButton
            label="Revoke"
            subject={key.name}
            question={`Revoke the key “${key.name}”? Programs using it stop working at once.`}
            confirmLabel="Revoke key"
            onConfirm={() => revoke(key)}
          />
        )}
      />
      <Pager {...keys.pager} />
    </>
  );
}
