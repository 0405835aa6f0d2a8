// Legacy-era smoke test with the official TypeScript SDK v1 (@modelcontextprotocol/sdk@1.32.2).
// It speaks 2025-11-25 at most (initialize handshake), so this exercises the legacy wire.
//
//   node smoke-legacy.mjs http://127.0.0.1:PORT/mcp [http://127.0.0.1:PORT2/mcp]
//
// With a second URL (an endpoint on the sandbox network) it also buys a PDF there and checks
// that the embedded resource's bytes are the ones structuredContent describes (size, sha256).
// The checks themselves are shared with smoke-modern.mjs (smoke-lib.mjs); this file holds what
// the v1 SDK does its own way.
//
// Exits 0 when every assertion holds; otherwise prints "smoke-legacy: FAIL: ..." and exits 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { assert, smokeEra } from './smoke-lib.mjs';

const NAME = 'smoke-legacy';
const VERSION = '2025-11-25';

smokeEra({
  name: NAME,
  version: VERSION,
  file: { id: 'rustguide', mimeType: 'application/pdf', magic: Buffer.from('255044462d', 'hex') }, // %PDF-
  isProtocolError: (err) => err instanceof McpError,
  // The v1 SDK negotiates with initialize; the server must accept its latest revision and must
  // not hand out a session (the endpoint is stateless).
  async connect(url) {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: NAME, version: '0.0.0' }, { capabilities: {} });
    await client.connect(transport, { timeout: 10_000 });
    assert(
      transport.protocolVersion === VERSION,
      `negotiated protocol version is ${JSON.stringify(transport.protocolVersion)}, want ${VERSION}`,
    );
    assert(transport.sessionId === undefined, `server sent Mcp-Session-Id ${JSON.stringify(transport.sessionId)}`);
    const info = client.getServerVersion();
    assert(info && typeof info.name === 'string' && info.name !== '', `serverInfo missing: ${JSON.stringify(info)}`);
    return client;
  },
});
