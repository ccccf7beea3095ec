import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, fieldSentences } from './api';
import { useAction } from './hooks';

let nextId = 0;
const useId = (prefix: string) => useRef(`${prefix}-${++nextId}`).current;

/** Page title: sets document.title and takes the focus after a navigation. */
export function PageTitle({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = children === 'OpenVox' ? children : `${children} · OpenVox`;
    ref.current?.focus();
  }, [children]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A form control's attributes, with a visible label, and `onValue` told each new value. */
type ControlProps<Attributes> = Omit<Attributes, 'label' | 'value'> & {
  label: string;
  onValue?: (value: string) => void;
};

/** A control under its label (the label names it: for=id). */
function Labelled({
  id,
  label,
  wide = false,
  children,
}: {
  id: string;
  label: string;
  wide?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={wide ? 'field wide' : 'field'}>
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

type InputProps = ControlProps<JSX.InputHTMLAttributes<HTMLInputElement>> & { hint?: string; value?: string | number };

/** A labelled input; the hint is read with it (aria-describedby); `onValue` hears each input. */
export function Field({ label, hint, onValue, ...input }: InputProps) {
  const id = useId('field');
  return (
    <Labelled id={id} label={label}>
      <input
        id={id}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={onValue && ((event) => onValue(event.currentTarget.value))}
        {...input}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </Labelled>
  );
}

type SelectProps = ControlProps<JSX.SelectHTMLAttributes<HTMLSelectElement>> & {
  value?: string;
  options: [string, string][];
  /** The whole row of a grid, the choice as wide as it: long names are not cut. */
  wide?: boolean;
};

/** A labelled choice of `options` ([value, text]); `onValue` hears each change. */
export function Select({ label, options, onValue, wide, ...select }: SelectProps) {
  const id = useId('select');
  return (
    <Labelled id={id} label={label} wide={wide}>
      <select id={id} onChange={onValue && ((event) => onValue(event.currentTarget.value))} {...select}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/**
 * An API failure said plainly (role=alert announces it): every field's problem at once, each naming its field in
 * words. The request id is offered only for a server fault (5xx), where reporting it helps.
 */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
  const fields = error instanceof ApiError ? fieldSentences(error.problem) : [];
  const requestId = error instanceof ApiError && error.status >= 500 ? error.problem.request_id : undefined;
  return (
    <div class="error" role="alert">
      {fields.length > 1 ? (
        <ul>
          {fields.map((sentence) => (
            <li key={sentence}>{sentence}</li>
          ))}
        </ul>
      ) : (
        <p>{text}</p>
      )}
      {requestId && <p class="hint">Request id: {requestId}</p>}
    </div>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {children}
    </p>
  );
}

/** A button that asks first, in a modal dialog (focus stays inside; Escape cancels). */
export function ConfirmButton({
  label,
  subject,
  question,
  confirmLabel,
  onConfirm,
  describedBy,
  busyLabel,
  class: className = 'danger',
}: {
  label: string;
  /** What it acts on, when the visible label alone is ambiguous: screen readers hear "Delete my voice" for "Delete". */
  subject?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  describedBy?: string;
  /** The confirming button's words while it runs ("Canceling…"); it is enabled again whatever the outcome. */
  busyLabel?: string;
  class?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId('confirm');
  const confirm = useAction(async () => {
    await onConfirm();
    dialog.current?.close();
  });
  return (
    <>
      <button
        type="button"
        class={className}
        aria-label={subject && `${label} ${subject}`}
        aria-describedby={describedBy}
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <p id={titleId}>{question}</p>
        <ErrorMessage error={confirm.error} />
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="danger" disabled={confirm.busy} onClick={() => confirm.run()}>
            {confirm.busy && busyLabel ? busyLabel : confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function Pager({
  page,
  count,
  pageSize,
  onPage,
}: {
  page: number;
  count: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
