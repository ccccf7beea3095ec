#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { read } from 'read';
import { runCli } from './program';

void runCli(process.argv.slice(2), {
  out: (chunk) => process.stdout.write(chunk),
  err: (chunk) => process.stderr.write(chunk),
  env: process.env,
  tty: Boolean(process.stderr.isTTY),
  // Prompts only on a terminal (on stderr, so stdout stays the command's output); a script gives flags or the environment.
  ...(process.stdin.isTTY && {
    prompt: (question, { secret }) =>
      read({ prompt: question, silent: secret, replace: secret ? '*' : undefined, output: process.stderr }),
  }),
  readStdin: () => text(process.stdin),
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
}).then((code) => {
  process.exitCode = code;
});
