import { randomUUID } from 'node:crypto';
import type { ApiDeps } from '../../api/deps';
import { hashPassword } from '../../api/auth/passwords';
import type { SynthesisRequest } from '../../synthesis/contracts';

/**
 * Rows written straight to the database. No jest here (bench/http.ts uses
 * these too, compiled without it): assertions live in ./http.
 */

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.com`;
export const PASSWORD = 'correct horse battery staple';

export interface TestAccount {
  id: string;
  email: string;
  password: string;
  /** An access JWT for the account. */
  access: string;
}

/**
 * A verified account written straight to the database, with an access token:
 * for tests of other resources that do not need the signup workflow.
 */
export async function createAccount(
  deps: ApiDeps,
  { credits = 35_000 }: { credits?: number } = {},
): Promise<TestAccount> {
  const id = randomUUID();
  const email = uniqueEmail('factory');
  await deps.db('accounts').insert({
    id,
    email,
    name: 'Test Account',
    password_hash: await hashPassword(PASSWORD),
    email_verified_at: new Date(),
    credit_balance: credits,
  });
  return { id, email, password: PASSWORD, access: await deps.tokens.issueAccess(id) };
}

type Row = Record<string, unknown>;

/**
 * A cloned voice row of `owner`'s as the cloning workflow leaves one (no
 * sample, no workflow); `fields` override the defaults (status, name, ...).
 * Returns its id.
 */
export async function createVoice(deps: ApiDeps, owner: { id: string }, fields: Row = {}): Promise<string> {
  const id = (fields.id as string | undefined) ?? randomUUID();
  await deps.db('voices').insert({
    category: 'cloned',
    account_id: owner.id,
    name: 'Test voice',
    language: 'en-US',
    gender: 'female',
    description: '',
    status: 'ready',
    ...fields,
    id,
  });
  return id;
}

/** A project of `owner`'s; returns its id. */
export async function createProject(deps: ApiDeps, owner: { id: string }, name = 'Test project'): Promise<string> {
  const [{ id }] = await deps.db('projects').insert({ id: randomUUID(), account_id: owner.id, name }).returning('id');
  return id;
}

/**
 * A synthesis row of `owner`'s written the way the workflow records one
 * (no workflow runs): completed by default, `fields` override. Returns its id.
 */
export async function createSynthesis(deps: ApiDeps, owner: { id: string }, fields: Row = {}): Promise<string> {
  const id = (fields.id as string | undefined) ?? randomUUID();
  const text = (fields.text as string | undefined) ?? 'Hello.';
  await deps.db('syntheses').insert({
    account_id: owner.id,
    voice_id: 'en-us-slt',
    text,
    characters: text.length,
    speed: 1,
    pitch: 0,
    emotion: 'neutral',
    output_format: 'wav',
    status: 'completed',
    ...fields,
    id,
  });
  return id;
}

/**
 * The request a synthesis workflow is started with (synthesis/contracts.ts): `text` for `accountId` in
 * en-us-slt, as the API makes it for a body with nothing else; `changes` override.
 */
export function synthesisRequest(
  accountId: string,
  text: string,
  changes: Partial<SynthesisRequest> = {},
): SynthesisRequest {
  return {
    synthesisId: randomUUID(),
    accountId,
    projectId: null,
    voiceId: 'en-us-slt',
    text,
    characters: [...text].length,
    speed: 1,
    pitch: 0,
    emotion: 'neutral',
    outputFormat: 'wav',
    ...changes,
  };
}
