import { randomUUID } from 'node:crypto';
import type { ApiDeps } from '../../api/deps';
import { hashPassword } from '../../api/auth/passwords';
import { PASSWORD, uniqueEmail } from './accounts';

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
export async function createAccount(deps: ApiDeps, { credits = 35_000 }: { credits?: number } = {}): Promise<TestAccount> {
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
