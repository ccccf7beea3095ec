import { z } from 'zod';

/** The header a same-origin script sends with every session request (see index.ts on CSRF). */
export const SESSION_HEADER = 'X-OpenVox-Session';

export const SessionOut = z
  .object({
    access: z
      .string()
      .meta({ description: 'The access JWT: send it as `Authorization: Bearer <access>`; keep it in memory only' }),
    token_type: z.literal('Bearer').meta({ description: 'Always `Bearer`' }),
    expires_in: z
      .number()
      .int()
      .meta({ description: 'Seconds until the access token expires (refresh the session before then)', example: 900 }),
  })
  .meta({ id: 'Session', description: 'An access token; the refresh token is in the HttpOnly session cookie' });

export const sessionHeaders = z.object({
  [SESSION_HEADER]: z.literal('1').meta({ description: 'Required: proves a same-origin script sent the request' }),
});
