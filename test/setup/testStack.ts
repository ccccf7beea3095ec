import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where the test run's services listen: apart from the start command's
 * defaults, so the suite can run beside a running dev stack.
 */
export const TEST_PORTS = { temporal: 17233, minio: 19000, minioConsole: 19001 };

export function testEnvironment(dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-test-'))): Record<string, string> {
  const devDatabase = new URL(process.env.DATABASE_URL ?? 'postgres://openvox:openvox@127.0.0.1:5432/openvox');
  const testDatabase = new URL(devDatabase);
  testDatabase.pathname = `${devDatabase.pathname}_test`;
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    DEV_DATABASE_URL: devDatabase.toString(),
    DATABASE_URL: testDatabase.toString(),
    TEMPORAL_ADDRESS: `127.0.0.1:${TEST_PORTS.temporal}`,
    TEMPORAL_NAMESPACE: 'default',
    MINIO_ENDPOINT: `http://127.0.0.1:${TEST_PORTS.minio}`,
    MINIO_ACCESS_KEY: 'openvox-test',
    MINIO_SECRET_KEY: 'openvox-test-secret',
    AUDIO_BUCKET: 'openvox-test',
    WORKFLOW_BUNDLE: path.join(dataDir, 'workflow-bundle.js'),
    // Every test speaks from 127.0.0.1; the rate-limit tests turn limits on for themselves.
    RATE_LIMIT_REGISTER_PER_HOUR: '0',
    RATE_LIMIT_LOGIN_PER_MINUTE: '0',
    RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '0',
    RATE_LIMIT_RESEND_PER_HOUR: '0',
  };
}
