import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Decodes a quoted-printable body (soft line breaks and =XX escapes). */
function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export interface Mail {
  file: string;
  raw: string;
  headers: string;
  body: string;
}

/** Every .eml written to MAIL_DIR for `email`, oldest first. */
export async function mailsTo(mailDir: string, email: string): Promise<Mail[]> {
  const files = (await readdir(mailDir).catch(() => [] as string[])).filter((file) => file.endsWith('.eml')).sort();
  const mails: Mail[] = [];
  for (const file of files) {
    const raw = await readFile(path.join(mailDir, file), 'utf8');
    const [headers, ...rest] = raw.split(/\r?\n\r?\n/);
    if (!new RegExp(`^To: .*${email.replace(/[.+]/g, '\\$&')}`, 'im').test(headers)) continue;
    const encoded = rest.join('\n\n');
    mails.push({
      file,
      raw,
      headers,
      body: /quoted-printable/i.test(headers) ? decodeQuotedPrintable(encoded) : encoded,
    });
  }
  return mails;
}

/** Waits for the nth mail to `email` (the worker sends it asynchronously) and returns its verification token. */
export async function waitForVerificationToken(
  mailDir: string,
  email: string,
  count = 1,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await mailsTo(mailDir, email);
    if (mails.length >= count) {
      const match = /\/api\/v1\/auth\/verify-email\/\?token=([A-Za-z0-9_-]+)/.exec(mails[count - 1].body);
      if (!match) throw new Error(`no verification link in ${mails[count - 1].file}`);
      return match[1];
    }
    if (Date.now() > deadline) throw new Error(`no mail #${count} to ${email} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Defined with the row factories (which the benchmarks use too, without jest); re-exported for the tests that import them from here.
export { PASSWORD, uniqueEmail } from './factories';

// `call` lives in ./http with the other request helpers; re-exported for the tests that import it from here.
export { call } from './http';
