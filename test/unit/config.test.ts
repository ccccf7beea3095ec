import { ConfigError, loadConfig } from '../../lib/config';

describe('loadConfig', () => {
  it('starts with no variables at all: the embedded development defaults', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.PUBLIC_URL).toBe('http://localhost:3000');
    expect(config.DATABASE_URL).toMatch(/^postgres:\/\/.+@127\.0\.0\.1:5432\//);
    expect(config.TEMPORAL_ADDRESS).toBe('127.0.0.1:7233');
    expect(config.minio).toEqual({ endPoint: '127.0.0.1', port: 9000, useSSL: false });
    expect(config.ACCESS_TOKEN_TTL).toBe(900);
    expect(config.REFRESH_TOKEN_TTL).toBe(14 * 24 * 3600);
    expect(config.VERIFICATION_TTL).toBe(24 * 3600);
    expect(config.MAIL_DIR.endsWith('.data/mail')).toBe(true);
    expect(config.HOST).toBe('127.0.0.1');
  });

  it('derives PUBLIC_URL from PORT and strips a trailing slash from a given one', () => {
    expect(loadConfig({ PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://tts.example.com/' }).PUBLIC_URL).toBe('https://tts.example.com');
  });

  it('reads an https S3 endpoint with its port', () => {
    expect(loadConfig({ MINIO_ENDPOINT: 'https://s3.example.com' }).minio).toEqual({
      endPoint: 's3.example.com',
      port: 443,
      useSSL: true,
    });
    expect(loadConfig({ MINIO_ENDPOINT: 'http://minio:9100' }).minio.port).toBe(9100);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', SMTP_URL: '' }).PORT).toBe(3000);
  });

  it('lets 0 turn a rate limit off', () => {
    expect(loadConfig({ RATE_LIMIT_LOGIN_PER_MINUTE: '0' }).RATE_LIMIT_LOGIN_PER_MINUTE).toBe(0);
  });

  it('keeps history unless HISTORY_RETENTION_DAYS names 1-3650 days', () => {
    expect(loadConfig({}).HISTORY_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({ HISTORY_RETENTION_DAYS: '30' }).HISTORY_RETENTION_DAYS).toBe(30);
    for (const bad of ['0', '3651', '1.5', 'forever'])
      expect(() => loadConfig({ HISTORY_RETENTION_DAYS: bad })).toThrow(/HISTORY_RETENTION_DAYS/);
  });

  it('rejects bad values with one error naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://x',
        JWT_SECRET: 'short',
        ACCESS_TOKEN_TTL: '-5',
        AUDIO_BUCKET: 'Bad_Bucket',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'JWT_SECRET', 'ACCESS_TOKEN_TTL', 'AUDIO_BUCKET'])
      expect(message).toContain(name);
  });
});
