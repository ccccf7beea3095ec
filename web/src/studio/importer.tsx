import { useState } from 'preact/hooks';
import { upload } from '../api';
import { formatNumber } from '../format';
import { ErrorMessage, Field, Select, Status } from '../ui';
import type { StudioProject } from '../types';

const ACCEPT =
  '.epub,.pdf,.md,.markdown,.txt,.text,.html,.htm,.xhtml,application/epub+zip,application/pdf,text/markdown,text/plain,text/html';

type Imported = StudioProject & { chapters: { id: string; title: string }[] };

/**
 * Brings a document into the project: dropped on the zone or chosen with the file picker, it is sent at once
 * (multipart `file`), replacing the chapters or added after them. A refusal says why, in the API's words.
 */
export function ImportDocument({ project, onImported }: { project: StudioProject; onImported: () => void }) {
  const [mode, setMode] = useState<'replace' | 'append'>('replace');
  const [over, setOver] = useState(false);
  const [sent, setSent] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const send = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setMessage(null);
    setSent(0);
    const form = new FormData();
    form.set('mode', mode);
    form.set('file', file, file.name);
    try {
      const imported = await upload<Imported>(`projects/${project.id}/content/`, form, setSent);
      const count = imported.chapters.length;
      setMessage(
        `Imported ${file.name}: the project has ${formatNumber(count)} ${count === 1 ? 'chapter' : 'chapters'}, ${formatNumber(imported.characters)} characters.`,
      );
      onImported();
    } catch (failure) {
      setError(failure);
    } finally {
      setSent(null);
    }
  };

  return (
    <section aria-labelledby="import-title">
      <h2 id="import-title">Import a document</h2>
      <div
        class={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          void send(event.dataTransfer?.files[0]);
        }}
      >
        <p>
          Drop an EPUB, PDF, Markdown (.md), text (.txt) or HTML file here, or choose one. Its chapters and paragraphs
          become the project’s; Markdown and HTML headings start chapters.
        </p>
        <div class="inline-form">
          <Select
            label="Chapters already here"
            value={mode}
            onValue={(value) => setMode(value === 'append' ? 'append' : 'replace')}
            options={[
              ['replace', 'Replace them with the document’s'],
              ['append', 'Keep them, add the document’s after'],
            ]}
          />
          <Field
            label="Document"
            type="file"
            accept={ACCEPT}
            disabled={sent !== null}
            onChange={(event) => {
              const input = event.currentTarget;
              void send(input.files?.[0]).finally(() => {
                input.value = '';
              });
            }}
          />
        </div>
        {sent !== null && (
          <div class="job">
            <label for="import-progress">
              {sent < 1 ? `Sending: ${Math.round(sent * 100)} %` : 'Reading the document…'}
            </label>
            <progress id="import-progress" max={1} value={sent < 1 ? sent : undefined} />
          </div>
        )}
        {message && <Status>{message}</Status>}
        <ErrorMessage error={error} />
      </div>
    </section>
  );
}
