import { useRef, useState } from 'preact/hooks';
import { api, get, type Page } from '../api';
import { formatDate } from '../format';
import { RecordTable } from '../components/lists';
import { useLoad, usePagedLoad, useSubmit } from '../hooks';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status } from '../ui';
import { CopyButton } from './keys';

interface Webhook {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  secret?: string;
  previous_secret_expires_at?: string | null;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** The events an endpoint can receive, with what each means. */
const EVENTS: [string, string][] = [
  ['synthesis.completed', 'a synthesis is ready'],
  ['synthesis.failed', 'a synthesis failed'],
  ['synthesis.canceled', 'a synthesis was canceled'],
  ['voice.ready', 'a cloned voice is ready'],
  ['voice.failed', 'cloning a voice failed'],
  ['credits.low', 'the balance fell below 10 % of the plan’s monthly credits'],
  ['project.chapter.converted', 'a Studio chapter is converted'],
  ['project.conversion.completed', 'a Studio audiobook is ready'],
  ['project.conversion.failed', 'a Studio conversion failed'],
];
const PAGE_SIZE = 20;

/** A secret as the API shows it: once, at creation or rotation. */
function NewSecret({ webhook, rotated, onDone }: { webhook: Webhook; rotated: boolean; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <section class="notice" aria-labelledby="new-secret">
      <h2 id="new-secret">{rotated ? 'The new signing secret' : 'Your webhook’s signing secret'}</h2>
      <p>
        Copy it now: it is shown only once. Your receiver checks each delivery’s <code>OpenVox-Signature</code> with it
        (HMAC-SHA256 of <code>&lt;timestamp&gt;.&lt;body&gt;</code>).
        {rotated && webhook.previous_secret_expires_at
          ? ` The old secret signs too until ${formatDate(webhook.previous_secret_expires_at)}.`
          : ''}
      </p>
      <div class="copy">
        <label for="new-secret-value" class="visually-hidden">
          Signing secret
        </label>
        <input
          id="new-secret-value"
          ref={input}
          readOnly
          value={webhook.secret}
          class="mono"
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={webhook.secret!} label="Copy" fallback={() => input.current?.select()} />
      </div>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** An endpoint's newest deliveries. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useLoad(
    (signal) => get<Page<Delivery>>(`webhooks/${webhook.id}/deliveries/?page_size=10`, signal),
    [webhook.id],
  );
  return (
    <section class="deliveries" aria-label={`Recent deliveries to ${webhook.url}`}>
      <div class="actions">
        <h3>Recent deliveries</h3>
        <button type="button" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={deliveries.error} />
      {deliveries.data && deliveries.data.count === 0 && <p>None yet. Send a test ping.</p>}
      <RecordTable
        records={deliveries.data?.results}
        columns={[
          { title: 'Event', cell: (delivery) => delivery.event_type },
          {
            title: 'Status',
            cell: (delivery) => <span class={`badge ${delivery.status}`}>{delivery.status}</span>,
          },
          { title: 'Attempts', cell: (delivery) => delivery.attempts },
          {
            title: 'Last answer',
            cell: (delivery) => delivery.last_response_code ?? delivery.last_error ?? '—',
          },
          { title: 'When', cell: (delivery) => formatDate(delivery.created_at) },
        ]}
        actions={() => null}
      />
    </section>
  );
}

export function Webhooks() {
  const hooks = usePagedLoad<Webhook>('webhooks/', PAGE_SIZE);
  const [events, setEvents] = useState<Set<string>>(new Set(['synthesis.completed', 'synthesis.failed']));
  const [secret, setSecret] = useState<{ webhook: Webhook; rotated: boolean } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  // Remounts an endpoint's deliveries after a ping, so the new one is read.
  const [round, setRound] = useState(0);
  const [actionError, setActionError] = useState<unknown>(null);

  const create = useSubmit(async (form) => {
    setMessage(null);
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
    const created = await api<Webhook>('POST', 'webhooks/', {
      body: { url: value('url'), description: value('description'), events: [...events] },
    });
    form.reset();
    setSecret({ webhook: created, rotated: false });
    hooks.reload();
  });
  const toggleEvent = (event: string, on: boolean) => {
    const next = new Set(events);
    if (on) next.add(event);
    else next.delete(event);
    setEvents(next);
  };
  const rotate = async (webhook: Webhook) => {
    setMessage(null);
    setSecret({ webhook: await api<Webhook>('POST', `webhooks/${webhook.id}/rotate-secret/`), rotated: true });
  };
  const ping = async (webhook: Webhook) => {
    setActionError(null);
    setMessage(null);
    try {
      await api('POST', `webhooks/${webhook.id}/test/`);
      setMessage(`A test ping is on its way to ${webhook.url}.`);
      setOpen(webhook.id);
      setRound((value) => value + 1);
    } catch (failure) {
      setActionError(failure);
    }
  };
  const setEnabled = async (webhook: Webhook, enabled: boolean) => {
    setActionError(null);
    try {
      await api('PATCH', `webhooks/${webhook.id}/`, { body: { enabled } });
      hooks.reload();
    } catch (failure) {
      setActionError(failure);
    }
  };
  const remove = async (webhook: Webhook) => {
    await api('DELETE', `webhooks/${webhook.id}/`);
    setMessage(`The webhook to ${webhook.url} is deleted.`);
    hooks.reload();
  };
  const openWebhook = hooks.data?.results.find((webhook) => webhook.id === open);

  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>
        A webhook is an HTTPS address of yours that this server POSTs to when something ends (a synthesis, a cloned
        voice, a Studio conversion), so your program need not poll. Each delivery is signed with the endpoint’s secret.
      </p>
      {secret ? (
        <NewSecret webhook={secret.webhook} rotated={secret.rotated} onDone={() => setSecret(null)} />
      ) : (
        <form onSubmit={create.onSubmit} aria-labelledby="new-webhook">
          <h2 id="new-webhook">New webhook</h2>
          <Field
            label="URL"
            name="url"
            type="url"
            required
            placeholder="https://example.org/openvox"
            hint="An https address your receiver answers at."
          />
          <Field label="Description (optional)" name="description" maxLength={500} />
          <fieldset class="checks">
            <legend>Events</legend>
            {EVENTS.map(([event, meaning]) => (
              <div class="field check" key={event}>
                <input
                  id={`event-${event}`}
                  type="checkbox"
                  checked={events.has(event)}
                  onChange={(change) => toggleEvent(event, change.currentTarget.checked)}
                />
                <label for={`event-${event}`}>
                  <code>{event}</code>: {meaning}
                </label>
              </div>
            ))}
          </fieldset>
          <ErrorMessage error={create.error} />
          <button type="submit" class="primary" disabled={create.busy || events.size === 0}>
            Create webhook
          </button>
        </form>
      )}
      {message && <Status>{message}</Status>}
      <ErrorMessage error={actionError} />
      <h2>Your webhooks</h2>
      <ErrorMessage error={hooks.error} />
      {hooks.data && hooks.data.count === 0 && <p>No webhooks yet.</p>}
      <RecordTable
        records={hooks.data?.results}
        columns={[
          { title: 'URL', cell: (webhook) => <span class="mono">{webhook.url}</span> },
          { title: 'Events', cell: (webhook) => webhook.events.join(', ') },
          {
            title: 'State',
            cell: (webhook) =>
              webhook.enabled
                ? 'enabled'
                : `disabled${webhook.disabled_reason === 'gone' ? ' (the receiver answered 410 Gone)' : ''}`,
          },
          { title: 'Created', cell: (webhook) => formatDate(webhook.created_at) },
        ]}
        actions={(webhook) => (
          <div class="actions">
            <button type="button" aria-label={`Send a test ping to ${webhook.url}`} onClick={() => ping(webhook)}>
              Test ping
            </button>
            <button
              type="button"
              aria-expanded={open === webhook.id}
              aria-label={`Deliveries to ${webhook.url}`}
              onClick={() => setOpen(open === webhook.id ? null : webhook.id)}
            >
              Deliveries
            </button>
            <button
              type="button"
              aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${webhook.url}`}
              onClick={() => setEnabled(webhook, !webhook.enabled)}
            >
              {webhook.enabled ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton
              label="Rotate secret"
              subject={`of ${webhook.url}`}
              class=""
              question="Make a new signing secret? The old one keeps signing too for 24 hours, so your receiver can switch over."
              confirmLabel="Rotate secret"
              busyLabel="Rotating…"
              onConfirm={() => rotate(webhook)}
            />
            <ConfirmButton
              label="Delete"
              subject={webhook.url}
              question={`Delete the webhook to ${webhook.url}? Nothing more is delivered to it.`}
              confirmLabel="Delete webhook"
              busyLabel="Deleting…"
              onConfirm={() => remove(webhook)}
            />
          </div>
        )}
      />
      <Pager {...hooks.pager} />
      {openWebhook && <Deliveries key={`${openWebhook.id}-${round}`} webhook={openWebhook} />}
    </>
  );
}
