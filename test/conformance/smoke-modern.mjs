// Modern-era smoke test with the official TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0),
// pinned to 2026-07-28: stateless requests with per-request _meta, server/discover, no initialize.
//
//   node smoke-modern.mjs http://127.0.0.1:PORT/mcp [http://127.0.0.1:PORT2/mcp]
//
// With a second URL (an endpoint on the sandbox network) it also buys a ZIP there and checks
// that the embedded resource's bytes are the ones structuredContent describes (size, sha256).
// The checks themselves are shared with smoke-legacy.mjs (smoke-lib.mjs); this file holds what
// the v2 client does its own way.
//
// Exits 0 when every assertion holds; otherwise prints "smoke-modern: FAIL: ..." and exits 1.
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assert, smokeEra } from './smoke-lib.mjs';

const NAME = 'smoke-modern';
const VERSION = '2026-07-28';

smokeEra({
  name: NAME,
  version: VERSION,
  file: { id: 'agentpromptpack', mimeType: 'application/zip', magic: Buffer.from('504b0304', 'hex') }, // PK\x03\x04
  isProtocolError: (err) => ProtocolError.isInstance(err),
  // A pinned client fails loudly on anything but 2026-07-28, but check the era anyway so a
  // fallback to initialize can never pass silently.
  async connect(url) {
    const client = new Client(
      { name: NAME, version: '0.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: VERSION } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 10_000 });
    assert(client.getProtocolEra() === 'modern', `protocol era is ${JSON.stringify(client.getProtocolEra())}, want "modern"`);
    assert(
      client.getNegotiatedProtocolVersion() === VERSION,
      `negotiated protocol version is ${JSON.stringify(client.getNegotiatedProtocolVersion())}, want ${VERSION}`,
    );
    return client;
  },
});
