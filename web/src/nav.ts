/** The pages behind the login, as the main navigation lists them: address and name (each page's heading too). */
export const NAV: [string, string][] = [
  ['/app/playground', 'Playground'],
  ['/app/history', 'History'],
  ['/app/voices', 'Voices'],
  ['/app/projects', 'Projects'],
  ['/app/studio', 'Studio'],
  ['/app/dictionaries', 'Dictionaries'],
  ['/app/keys', 'API keys'],
  ['/app/webhooks', 'Webhooks'],
  ['/app/usage', 'Usage'],
  ['/app/account', 'Account'],
];
