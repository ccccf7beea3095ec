import { useRef, useState } from 'preact/hooks';
import { api, get, type Page } from '../api';
import { formatDate } from '../format';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status, useLoad } from '../ui';
import type { ApiKey } from '../types';

const PAGE_SIZE = 20;

/** The new key, shown once: the API keeps only its hash. */
function NewKey({ created, onDone }: { created: ApiKey; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key!);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard permission (e.g. plain http): select it so the person can copy it themselves.
      input.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };
  return (
    <section class="notice" aria-labelledby="new-key">
      <h2 id="new-key">Your new key “{created.name}”</h2>
      <p>Copy it now: it is shown only once. Anyone with this key can use your account.</p>
      <div class="copy">
        <label for="new-key-value" class="visually-hidden">
          API key
        </label>
        <input id="new-key-value" ref={input} readOnly value={created.key} class="mono" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      {copied && <Status>{copied}</Status>}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export function ApiKeys() {
  const [page, setPage] = useState(1);
  const keys = useLoad((signal) => get<Page<ApiKey>>(`auth/api-keys/?page=${page}&page_size=${PAGE_SIZE}`, signal), [page]);
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
        API keys let programs use your account: send one as <code>Authorization: Bearer vk_…</code>. They work until you revoke them.
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
          <table>
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
                  <td class="mono">{key.prefix}…</td>
                  <td>{formatDate(key.created_at)}</td>
                  <td>{formatDate(key.last_used_at)}</td>
                  <td>
                    <ConfirmButton
                      label={`Revoke ${key.name}`}
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
