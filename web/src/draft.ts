/**
 * The playground's draft (its text and text type), kept in this browser per
 * account (localStorage, keyed by the account's id) so that going to pick a
 * voice, or reloading, does not lose it. Only an explicit "Clear" removes it.
 * A browser that refuses storage (private mode, full) simply keeps nothing.
 */
export interface Draft {
  text: string;
  textType: 'text' | 'ssml';
}

import { onSessionChange } from './api';

/** The logged-in account's id once a page has read the profile: a draft typed before this page's read is kept too. */
let knownAccount: string | null = null;
onSessionChange(() => {
  knownAccount = null;
});
export const rememberAccount = (id: string | undefined) => {
  if (id) knownAccount = id;
};
export const knownAccountId = () => knownAccount;

const key = (accountId: string) => `openvox:playground-draft:${accountId}`;

export function readDraft(accountId: string): Draft | null {
  try {
    const stored = JSON.parse(localStorage.getItem(key(accountId)) ?? 'null') as Partial<Draft> | null;
    if (!stored || typeof stored.text !== 'string') return null;
    return { text: stored.text, textType: stored.textType === 'ssml' ? 'ssml' : 'text' };
  } catch {
    return null;
  }
}

export function saveDraft(accountId: string, draft: Draft): void {
  try {
    if (draft.text) localStorage.setItem(key(accountId), JSON.stringify(draft));
    else localStorage.removeItem(key(accountId));
  } catch {
    // No storage: the draft lives as long as the page.
  }
}
