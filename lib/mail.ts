import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from './config';
import type { Logger } from './logger';

export interface MailMessage {
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
 * written as one RFC 5322 `.eml` file into MAIL_DIR, for development and tests.
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

  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await composer.sendMail(envelope(message));
      await mkdir(config.MAIL_DIR, { recursive: true });
      const id = info.messageId.replace(/[^A-Za-z0-9.-]/g, '');
      const file = path.join(config.MAIL_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info({ file }, 'mail written');
      return file;
    },
  };
}
