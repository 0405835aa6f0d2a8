// Legacy-era smoke test with the official TypeScript SDK v1 (@modelcontextprotocol/sdk@1.32.2).
// It speaks 2025-11-25 at most (initialize handshake), so this exercises the legacy wire.
//
//   node smoke-legacy.mjs http://127.0.0.1:PORT/mcp [http://127.0.0.1:PORT2/mcp]
//
// With a second URL (an endpoint on the sandbox network) it also buys a file there and checks
// that the embedded resource's bytes are the ones structuredContent describes (size, sha256).
//
// Exits 0 when every assertion holds; otherwise prints "smoke-legacy: FAIL: ..." and exits 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';

const NAME = 'smoke-legacy';
const TOOL = 'mindvault_network_profile';
const FILE = { id: 'rustguide', mimeType: 'application/pdf', magic: Buffer.from('255044462d', 'hex') }; // %PDF-
const WANT_VERSION = '2025-11-25';

class AssertionFailure extends Error {}

function assert(cond, message) {
  if (!cond) throw new AssertionFailure(message);
}

function errorCode(err) {
  return err && typeof err === 'object' && 'code' in err ? err.code : undefined;
}

// buyFile buys FILE on a sandbox endpoint and checks what arrived: an embedded resource whose
// decoded bytes have the size and sha256 structuredContent states and start like the type sold,
// and a JSON text block that does not repeat them.
async function buyFile(client) {
  const res = await client.callTool({ name: 'mindvault_buy', arguments: { resourceId: FILE.id } });
  assert(!res.isError, `mindvault_buy ${FILE.id} returned isError: ${JSON.stringify(res.content)}`);
  const access = res.structuredContent?.access;
  assert(access && access.delivery === 'inline', `mindvault_buy access is ${JSON.stringify(access)}, want delivery "inline"`);
  const block = res.content.find((c) => c.type === 'resource');
  assert(
    block && block.resource && typeof block.resource.blob === 'string',
    `no embedded resource with a blob among content types ${JSON.stringify(res.content.map((c) => c.type))}`,
  );
  assert(
    block.resource.uri === `mindvault://resources/${FILE.id}` && block.resource.mimeType === FILE.mimeType,
    `embedded resource is ${block.resource.uri} (${block.resource.mimeType}), want mindvault://resources/${FILE.id} (${FILE.mimeType})`,
  );
  const bytes = Buffer.from(block.resource.blob, 'base64');
  const sha = createHash('sha256').update(bytes).digest('hex');
  assert(
    bytes.length === access.size && sha === access.sha256,
    `blob is ${bytes.length} bytes with sha256 ${sha}; structuredContent says ${access.size} bytes with ${access.sha256}`,
  );
  assert(bytes.subarray(0, FILE.magic.length).equals(FILE.magic), `the blob does not start like a ${FILE.mimeType}`);
  const json = res.content.find((c) => c.type === 'text')?.text ?? '';
  assert(!json.includes(block.resource.blob.slice(0, 64)), 'the JSON text block repeats the bytes');
  return `bought ${FILE.id}: ${bytes.length} bytes, sha256 verified`;
}

async function main() {
  const url = process.argv[2];
  const sandboxUrl = process.argv[3];
  if (!url) {
    console.error(`usage: node ${NAME}.mjs http://127.0.0.1:PORT/mcp [sandbox URL]`);
    process.exit(2);
  }

  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: NAME, version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 10_000 });
  try {
    // Era: the v1 SDK negotiates with initialize; the server must accept its latest revision
    // and must not hand out a session (the endpoint is stateless).
    assert(
      transport.protocolVersion === WANT_VERSION,
      `negotiated protocol version is ${JSON.stringify(transport.protocolVersion)}, want ${WANT_VERSION}`,
    );
    assert(transport.sessionId === undefined, `server sent Mcp-Session-Id ${JSON.stringify(transport.sessionId)}`);
    const info = client.getServerVersion();
    assert(info && typeof info.name === 'string' && info.name !== '', `serverInfo missing: ${JSON.stringify(info)}`);

    // tools/list
    const { tools } = await client.listTools();
    assert(Array.isArray(tools) && tools.length > 0, 'tools/list returned no tools');
    const tool = tools.find((t) => t.name === TOOL);
    assert(tool, `tools/list lacks ${TOOL} (got: ${tools.map((t) => t.name).join(', ')})`);

    // tools/call success. The SDK validates structuredContent against the tool's outputSchema.
    const ok = await client.callTool({ name: TOOL, arguments: {} });
    assert(!ok.isError, `${TOOL} returned isError: ${JSON.stringify(ok.content)}`);
    assert(
      ok.structuredContent && ok.structuredContent.network === 'testnet',
      `${TOOL} structuredContent.network is ${JSON.stringify(ok.structuredContent?.network)}, want "testnet"`,
    );

    // tools/call with an argument the tool does not accept: a tool-result error, not a protocol error.
    const bad = await client.callTool({ name: TOOL, arguments: { unexpected: 1 } });
    assert(bad.isError === true, `unknown argument: want isError true, got ${JSON.stringify(bad)}`);
    const text = Array.isArray(bad.content) ? bad.content.find((c) => c.type === 'text')?.text : undefined;
    assert(typeof text === 'string', `unknown argument: no text content in ${JSON.stringify(bad.content)}`);
    const line2 = text.split('\n')[1] ?? '';
    const wantLine2 = 'Source: request validation · Category: validation · Code: INVALID_ARGUMENTS';
    assert(line2 === wantLine2, `unknown argument: text line 2 is ${JSON.stringify(line2)}, want ${JSON.stringify(wantLine2)}`);

    // Unknown tool: a JSON-RPC error -32602.
    let caught;
    try {
      await client.callTool({ name: 'mindvault_no_such_tool', arguments: {} });
    } catch (err) {
      caught = err;
    }
    assert(caught !== undefined, 'unknown tool: call succeeded, want JSON-RPC error -32602');
    assert(
      caught instanceof McpError && errorCode(caught) === -32602,
      `unknown tool: want McpError code -32602, got ${caught?.constructor?.name} code ${errorCode(caught)}: ${caught?.message}`,
    );
    // The unknown tool's error.data carries the diagnostic vocabulary and a few close names.
    const data = caught.data ?? {};
    assert(
      data.code === 'UNKNOWN_NAME' && data.category === 'not_found' && Array.isArray(data.suggestions) &&
        data.suggestions.length <= 3 && data.tools === undefined,
      `unknown tool: error.data is ${JSON.stringify(data)}`,
    );

    // prompts/list and prompts/get.
    const { prompts } = await client.listPrompts();
    const promptNames = prompts.map((p) => p.name).join(',');
    assert(promptNames === 'buy,publish,troubleshoot', `prompts/list returned ${promptNames}`);
    const buy = await client.getPrompt({ name: 'buy', arguments: { resourceId: 'rustguide' } });
    const buyText = buy.messages?.[0]?.content?.text ?? '';
    assert(
      buyText.includes('mindvault_preview') && buyText.includes('dryRun: true'),
      `prompts/get buy: ${JSON.stringify(buy)}`,
    );
  } finally {
    await client.close();
  }
  let bought = '';
  if (sandboxUrl) {
    const buyer = new Client({ name: NAME, version: '0.0.0' }, { capabilities: {} });
    await buyer.connect(new StreamableHTTPClientTransport(new URL(sandboxUrl)), { timeout: 10_000 });
    try {
      bought = await buyFile(buyer);
    } finally {
      await buyer.close();
    }
  }
  console.log(`${NAME}: ok (protocol ${WANT_VERSION}, ${TOOL}: list, call, isError result, unknown tool -32602 with suggestions; prompts list and get)${bought ? `; ${bought}` : ''}`);
}

main().catch((err) => {
  const detail = err instanceof AssertionFailure ? err.message : err?.stack || String(err);
  console.error(`${NAME}: FAIL: ${detail}`);
  process.exit(1);
});
