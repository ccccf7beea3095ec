import { connect, type Socket } from 'node:net';
import { createApp } from '../../api/app';
import { serve } from '../../api/listen';
import { eventually } from '../helpers/eventually';
import { createTestDeps } from '../helpers/stack';

/** One client cannot hold the API: a body that trickles in gets 408, and connections past the cap are closed. */
describe('API connection limits', () => {
  const deps = createTestDeps({ HTTP_REQUEST_TIMEOUT_SECONDS: '2', HTTP_MAX_CONNECTIONS: '3' });
  let api: Awaited<ReturnType<typeof serve>>;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    api = await serve(createApp(deps), deps.config);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await api?.close();
    await deps.close();
  });

  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const { port } = new URL(api.url);
      const socket = connect(Number(port), '127.0.0.1', () => resolve(socket)).on('error', reject);
      sockets.push(socket);
    });
  /** What the server sends before it closes the socket. */
  const answerOf = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (bytes) => (text += bytes.toString('latin1')));
      socket.on('close', () => resolve(text));
    });

  it('answers 408 and closes when a request body does not arrive within HTTP_REQUEST_TIMEOUT_SECONDS', async () => {
    const socket = await open();
    const answer = answerOf(socket);
    socket.write(
      'POST /api/v1/auth/login/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":',
    );
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  });

  it('closes connections past HTTP_MAX_CONNECTIONS, and serves again once one is gone', async () => {
    const held = await Promise.all([open(), open(), open()]);
    const extra = await open();
    const refused = answerOf(extra);
    extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await refused).toBe('');
    held[0].destroy();
    // The server counts a closed connection once it has seen it close.
    await eventually(
      'a free connection',
      async () =>
        (await fetch(`${api.url}/healthz`, { headers: { Connection: 'close' } }).catch(() => null))?.status === 200,
      5_000,
    );
  });
});
