import type { Command } from 'commander';
import os from 'node:os';
import {
  ApiError,
  configPath,
  DEFAULT_URL,
  clientSettings,
  OpenVoxClient,
  readConfig,
  type StoredConfig,
  writeConfig,
} from './client';
import type { ApiKeyCreatedJson, ApiKeyJson, ApiKeyPageJson, TokenPairJson } from './wire';

/**
 * The user's account from the command line: `openvox login` makes an API key
 * for this machine and keeps it in the config file (0600), `openvox logout`
 * revokes it, `openvox keys` lists, creates and revokes keys.
 */

interface AccountIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  prompt?: (question: string, options: { secret: boolean }) => Promise<string>;
  readStdin?: () => Promise<string>;
}

type Print = (command: Command, value: unknown, text: () => string) => void;

/** The API's key name field holds 1-100 characters. */
const machineKeyName = () => `openvox CLI on ${os.hostname()}`.slice(0, 100);

/** Every key of the account (pages of 100), newest first. */
async function allKeys(api: OpenVoxClient): Promise<ApiKeyJson[]> {
  const keys: ApiKeyJson[] = [];
  for (let page = 1; ; page++) {
    const answer = await api.json<ApiKeyPageJson>('GET', `/api/v1/auth/api-keys/?page_size=100&page=${page}`);
    keys.push(...answer.results);
    if (!answer.next || answer.results.length === 0) return keys;
  }
}

/** Removes the login's key (and whose it is) from the config file, keeping the rest (its URL). */
async function forgetLogin(file: string, stored: StoredConfig): Promise<void> {
  const { api_key: _key, api_key_id: _id, email: _email, ...rest } = stored;
  await writeConfig(file, rest);
}

export function addAccountCommands(program: Command, io: AccountIo, print: Print): void {
  const file = () => configPath(io.env);

  /** A value from a flag, else the environment, else a prompt on the terminal; a script without either is told which to give. */
  async function ask(
    question: string,
    { secret, given, envName, flag }: { secret: boolean; given?: string; envName: string; flag: string },
  ): Promise<string> {
    const value = given ?? io.env[envName];
    if (value) return value;
    if (!io.prompt)
      throw new Error(`no ${question.toLowerCase()}: not on a terminal, so give ${flag} or set ${envName}`);
    const answer = (await io.prompt(`${question}: `, { secret })).trim();
    if (!answer) throw new Error(`no ${question.toLowerCase()} given`);
    return answer;
  }

  program
    .command('login')
    .description(
      'Log in and keep an API key for this machine in ~/.config/openvox/config.json (mode 0600); user commands use it unless OPENVOX_API_KEY is set (user command)',
    )
    .option('--url <url>', 'the API (default: OPENVOX_URL, else the stored URL, else http://localhost:3000)')
    .option('--email <email>', 'your email (default: OPENVOX_EMAIL, else asked)')
    .option(
      '--password-stdin',
      'read the password from standard input (default: OPENVOX_PASSWORD, else asked without echo)',
    )
    .option('--key-name <name>', 'the new API key’s name (default: "openvox CLI on <host>")')
    .action(async (options, command: Command) => {
      const path = file();
      const stored = readConfig(path);
      const url = (options.url || io.env.OPENVOX_URL || stored.url || DEFAULT_URL).replace(/\/+$/, '');
      const email = await ask('Email', {
        secret: false,
        given: options.email,
        envName: 'OPENVOX_EMAIL',
        flag: '--email',
      });
      let password: string | undefined;
      if (options.passwordStdin) {
        if (!io.readStdin) throw new Error('--password-stdin: standard input cannot be read here');
        password = (await io.readStdin()).replace(/\r?\n$/, '');
        if (!password) throw new Error('--password-stdin: standard input was empty');
      }
      password ??= await ask('Password', { secret: true, envName: 'OPENVOX_PASSWORD', flag: '--password-stdin' });

      const api = new OpenVoxClient({ url });
      const session = await api.json<TokenPairJson>('POST', '/api/v1/auth/login/', { json: { email, password } });
      let created: ApiKeyCreatedJson;
      try {
        created = await api.json<ApiKeyCreatedJson>('POST', '/api/v1/auth/api-keys/', {
          json: { name: options.keyName || machineKeyName() },
          token: session.access,
        });
      } finally {
        // The key is what stays; the login's own session ends here.
        await api
          .request('POST', '/api/v1/auth/logout/', { json: { refresh: session.refresh }, token: session.access })
          .catch(() => undefined);
      }
      const previous = stored.api_key && (stored.url ?? DEFAULT_URL).replace(/\/+$/, '') === url ? stored : undefined;
      await writeConfig(path, { ...stored, url, api_key: created.key, api_key_id: created.id, email });
      // A second login replaces the key it made before rather than leaving it working unseen.
      let replaced = false;
      if (previous?.api_key_id && previous.api_key !== created.key) {
        replaced = await api
          .request('DELETE', `/api/v1/auth/api-keys/${previous.api_key_id}/`, { token: previous.api_key })
          .then(
            () => true,
            () => false,
          );
      }
      const overridden = io.env.OPENVOX_API_KEY
        ? ' (OPENVOX_API_KEY is set and wins over it: unset it to use this key)'
        : '';
      print(
        command,
        {
          url,
          email,
          config: path,
          api_key: { id: created.id, name: created.name, prefix: created.prefix },
          replaced_key_id: replaced ? previous?.api_key_id : null,
        },
        () =>
          [
            `logged in to ${url} as ${email}: API key "${created.name}" (${created.prefix}…) stored in ${path}${overridden}`,
            ...(replaced ? ['revoked the key of the previous login'] : []),
          ].join('\n'),
      );
    });

  program
    .command('logout')
    .description('Revoke the API key openvox login stored and remove it from the config file (user command)')
    .action(async (_options, command: Command) => {
      const path = file();
      const stored = readConfig(path);
      if (!stored.api_key) {
        print(command, { config: path, revoked: false, removed: false }, () => `not logged in: no API key in ${path}`);
        return;
      }
      const api = new OpenVoxClient({ url: (stored.url || DEFAULT_URL).replace(/\/+$/, ''), apiKey: stored.api_key });
      let revoked = false;
      let note = '';
      try {
        const id = stored.api_key_id ?? (await allKeys(api)).find((key) => stored.api_key!.startsWith(key.prefix))?.id;
        if (id) {
          await api.request('DELETE', `/api/v1/auth/api-keys/${id}/`);
          revoked = true;
        }
      } catch (error) {
        // Already revoked (from the dashboard, say): nothing left to revoke. Anything else: say so, and keep the key.
        if (!(error instanceof ApiError && (error.status === 401 || error.status === 404)))
          throw new Error(`could not revoke the stored key, kept in ${path}: ${(error as Error).message}`);
        note = ' (it no longer worked)';
      }
      await forgetLogin(path, stored);
      print(
        command,
        { config: path, revoked, removed: true },
        () =>
          `${revoked ? `revoked the API key of ${stored.email ?? 'this login'}` : `removed the API key of ${stored.email ?? 'this login'}${note}`} from ${path}`,
      );
    });

  const keys = program.command('keys').description('Your API keys: list, create, revoke (user command)');
  const client = () => new OpenVoxClient(clientSettings(io.env));
  keys
    .command('list', { isDefault: true })
    .description('Your API keys, newest first (the keys themselves are shown only when created)')
    .action(async (_options, command: Command) => {
      const api = client();
      const listed = await allKeys(api);
      const current = readConfig(file()).api_key_id;
      print(command, listed, () =>
        listed.length === 0
          ? 'no API keys'
          : [
              'id\tprefix\tcreated\tlast used\tname',
              ...listed.map((key) =>
                [
                  key.id,
                  `${key.prefix}…`,
                  key.created_at.slice(0, 16).replace('T', ' '),
                  key.last_used_at?.slice(0, 16).replace('T', ' ') ?? 'never',
                  `${key.name}${key.id === current ? ' (this login)' : ''}`,
                ].join('\t'),
              ),
            ].join('\n'),
      );
    });
  keys
    .command('create')
    .description(
      'Create an API key; it is printed once (stdout has the key alone, for scripts: KEY=$(openvox keys create ci))',
    )
    .argument('<name>', 'what it is for, 1-100 characters')
    .action(async (name: string, _options, command: Command) => {
      const created = await client().json<ApiKeyCreatedJson>('POST', '/api/v1/auth/api-keys/', { json: { name } });
      if (!(command.optsWithGlobals().json as boolean))
        io.err(`created API key "${created.name}" (${created.id}); it is shown this once:\n`);
      print(command, created, () => created.key);
    });
  keys
    .command('revoke')
    .description('Revoke an API key: it stops working at once')
    .argument('<key>', 'its id, or its prefix (vk_…) as keys list shows it')
    .action(async (wanted: string, _options, command: Command) => {
      const api = client();
      const prefix = wanted.replace(/…$/, '');
      const matches = (await allKeys(api)).filter(
        (key) => key.id === wanted || (prefix.length >= 6 && key.prefix.startsWith(prefix)),
      );
      if (matches.length === 0)
        throw new ApiError(404, 'not_found', `no API key ${wanted} (openvox keys list shows yours)`);
      if (matches.length > 1) throw new Error(`${wanted} names ${matches.length} keys: give the id`);
      const [key] = matches;
      await api.request('DELETE', `/api/v1/auth/api-keys/${key.id}/`);
      const path = file();
      const stored = readConfig(path);
      const wasLogin = stored.api_key_id === key.id;
      if (wasLogin) await forgetLogin(path, stored);
      print(
        command,
        { ...key, revoked: true, removed_from_config: wasLogin },
        () => `revoked ${key.id} "${key.name}"${wasLogin ? `; it was this machine’s login, removed from ${path}` : ''}`,
      );
    });
}
