import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from './config';
import type { Logger } from './logger';

interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends one message; returns where it went (the .eml path, or the SMTP message id). */
  send(message: MailMessage): Promise<string>;
}

/**
 * With SMTP_URL, mail goes out through SMTP; without it, each message is
 * written as one RFC 5322 `.eml` file into MAIL_DIR (7bit, readable and
 * greppable), for development and tests.
 */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_DIR' | 'MAIL_FROM'>, logger: Logger): Mailer {
  const envelope = (message: MailMessage) => ({
    from: config.MAIL_FROM,
    to: message.to,
    subject: message.subject,
    text: message.text,
    textEncoding: 'quoted-printable' as const,
  });

  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport(config.SMTP_URL);
    return {
      async send(message) {
        const info = await transport.sendMail(envelope(message));
        logger.info({ messageId: info.messageId }, 'mail sent via SMTP');
        return info.messageId;
      },
    };
  }

  return {
    async send(message) {
      await mkdir(config.MAIL_DIR, { recursive: true });
      const id = randomUUID();
      const file = path.join(config.MAIL_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
      await writeFile(file, composeEml(config.MAIL_FROM, message, id), { mode: 0o600 });
      logger.info({ file }, 'mail written');
      return file;
    },
  };
}

const NON_ASCII = /[^\x00-\x7f]/;

function encodedWord(value: string): string {
  return NON_ASCII.test(value) ? `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=` : value;
}

/**
 * One RFC 5322 message in 7bit (8bit when the text is not ASCII), so that a
 * person can read the link in the file and `grep` finds the token whole:
 * nodemailer picks quoted-printable for any line over 76 characters, and the
 * link is longer (QP turns `token=` into `token=3D` and may wrap the token).
 */
function composeEml(from: string, message: MailMessage, id: string, date = new Date()): string {
  const body = message.text.replace(/\r?\n/g, '\n');
  const headers = [
    `From: ${from}`,
    `To: ${message.to}`,
    `Subject: ${encodedWord(message.subject)}`,
    `Message-ID: <${id}@openvox.local>`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Transfer-Encoding: ${NON_ASCII.test(body) ? '8bit' : '7bit'}`,
  ];
  return `${headers.join('\n')}\n\n${body}${body.endsWith('\n') ? '' : '\n'}`;
}
