#!/usr/bin/env node
import { runCli } from './program';

void runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  tty: Boolean(process.stderr.isTTY),
}).then((code) => {
  process.exitCode = code;
});
