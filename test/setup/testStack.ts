import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, freePorts } from '../../scripts/stack';

export { freePort };

/**
 * Each jest run gets its own Temporal and MinIO ports, data directory and
 * database, so runs side by side (and a running dev stack) never meet.
 */
export async function testEnvironment(
  dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-test-')),
): Promise<Record<string, string>> {
  const devDatabase = new URL(process.env.DATABASE_URL ?? 'postgres://openvox:openvox@127.0.0.1:5432/openvox');
  const testDatabase = new URL(devDatabase);
  // `<dev database>_test_<pid of the jest run>`: scripts/stack.ts drops those whose run died.
  testDatabase.pathname = `${devDatabase.pathname}_test_${process.pid}`;
  const [temporalPort, minioPort, minioConsolePort] = await freePorts(3);
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    DEV_DATABASE_URL: devDatabase.toString(),
    DATABASE_URL: testDatabase.toString(),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_NAMESPACE: 'default',
    MINIO_ENDPOINT: `http://127.0.0.1:${minioPort}`,
    MINIO_CONSOLE_PORT: String(minioConsolePort),
    MINIO_ACCESS_KEY: 'openvox-test',
    MINIO_SECRET_KEY: 'openvox-test-secret',
    AUDIO_BUCKET: 'openvox-test',
    WORKFLOW_BUNDLE: path.join(dataDir, 'workflow-bundle.js'),
    // Every test speaks from 127.0.0.1; the rate-limit tests turn limits on for themselves.
    RATE_LIMIT_REGISTER_PER_HOUR: '0',
    RATE_LIMIT_LOGIN_PER_MINUTE: '0',
    RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '0',
    RATE_LIMIT_RESEND_PER_HOUR: '0',
    RATE_LIMIT_NORMALIZE_PER_MINUTE: '0',
  };
}
