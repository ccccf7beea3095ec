/** A session answer: the access token only; the refresh token is in the HttpOnly cookie. */
export const presentSession = (pair: { access: string; token_type: 'Bearer'; expires_in: number }) => ({
  access: pair.access,
  token_type: pair.token_type,
  expires_in: pair.expires_in,
});
