// Shared pieces of the smoke scripts: assertions, the failure exit, and the era smoke itself,
// which smoke-legacy.mjs and smoke-modern.mjs run with their own SDK (v1 or v2) plugged in.
// Only what differs between the two SDKs is left to the callers: how a client connects and
// proves its era, and how a JSON-RPC error is recognised.
import { createHash } from 'node:crypto';

/** AssertionFailure is a failed expectation: printed as its message, without a stack. */
export class AssertionFailure extends Error {}

/** assert throws an AssertionFailure with message unless cond holds. */
export function assert(cond, message) {
  if (!cond) throw new AssertionFailure(message);
}

/** run calls main and turns a failure into "NAME: FAIL: …" on stderr and exit status 1. */
export function run(name, main) {
  main().catch((err) => {
    const detail = err instanceof AssertionFailure ? err.message : err?.stack || String(err);
    console.error(`${name}: FAIL: ${detail}`);
    process.exit(1);
  });
}

function errorCode(err) {
  return err && typeof err === 'object' && 'code' in err ? err.code : undefined;
}

const TOOL = 'mindvault_network_profile';

// buyFile buys file on a sandbox endpoint and checks what arrived: an embedded resource whose
// decoded bytes have the size and sha256 structuredContent states and start like the type sold,
// and a JSON text block that does not repeat them.
async function buyFile(client, file) {
  const res = await client.callTool({ name: 'mindvault_buy', arguments: { resourceId: file.id } });
  assert(!res.isError, `mindvault_buy ${file.id} returned isError: ${JSON.stringify(res.content)}`);
  const access = res.structuredContent?.access;
  assert(access && access.delivery === 'inline', `mindvault_buy access is ${JSON.stringify(access)}, want delivery "inline"`);
  const block = res.content.find((c) => c.type === 'resource');
  assert(
    block && block.resource && typeof block.resource.blob === 'string',
    `no embedded resource with a blob among content types ${JSON.stringify(res.content.map((c) => c.type))}`,
  );
  assert(
    block.resource.uri === `mindvault://resources/${file.id}` && block.resource.mimeType === file.mimeType,
    `embedded resource is ${block.resource.uri} (${block.resource.mimeType}), want mindvault://resources/${file.id} (${file.mimeType})`,
  );
  const bytes = Buffer.from(block.resource.blob, 'base64');
  const sha = createHash('sha256').update(bytes).digest('hex');
  assert(
    bytes.length === access.size && sha === access.sha256,
    `blob is ${bytes.length} bytes with sha256 ${sha}; structuredContent says ${access.size} bytes with ${access.sha256}`,
  );
  assert(bytes.subarray(0, file.magic.length).equals(file.magic), `the blob does not start like a ${file.mimeType}`);
  const json = res.content.find((c) => c.type === 'text')?.text ?? '';
  assert(!json.includes(block.resource.blob.slice(0, 64)), 'the JSON text block repeats the bytes');
  return `bought ${file.id}: ${bytes.length} bytes, sha256 verified`;
}

/**
 * smokeEra runs the era smoke against argv[2] (and, given, the sandbox endpoint argv[3]):
 * the era check, tools/list, a successful call, an isError result for an unknown argument,
 * -32602 with suggestions for an unknown tool, prompts/list and prompts/get, and a bought file's
 * bytes. era supplies the SDK:
 *   name          the script's name, for messages
 *   version       the protocol revision the client must end up speaking
 *   file          { id, mimeType, magic } of the file to buy on the sandbox
 *   connect(url)  a connected client, its era already checked (assertions inside)
 *   isProtocolError(err)  whether err is the SDK's JSON-RPC error type
 */
export function smokeEra(era) {
  run(era.name, async () => {
    const url = process.argv[2];
    const sandboxUrl = process.argv[3];
    if (!url) {
      console.error(`usage: node ${era.name}.mjs http://127.0.0.1:PORT/mcp [sandbox URL]`);
      process.exit(2);
    }

    const client = await era.connect(url);
    try {
      // tools/list
      const { tools } = await client.listTools();
      assert(Array.isArray(tools) && tools.length > 0, 'tools/list returned no tools');
      const tool = tools.find((t) => t.name === TOOL);
      assert(tool, `tools/list lacks ${TOOL} (got: ${tools.map((t) => t.name).join(', ')})`);

      // tools/call success. Both SDKs validate structuredContent against the tool's outputSchema.
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
        era.isProtocolError(caught) && errorCode(caught) === -32602,
        `unknown tool: want a JSON-RPC error with code -32602, got ${caught?.constructor?.name} code ${errorCode(caught)}: ${caught?.message}`,
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
      const buyer = await era.connect(sandboxUrl);
      try {
        bought = await buyFile(buyer, era.file);
      } finally {
        await buyer.close();
      }
    }
    console.log(`${era.name}: ok (protocol ${era.version}, ${TOOL}: list, call, isError result, unknown tool -32602 with suggestions; prompts list and get)${bought ? `; ${bought}` : ''}`);
  });
}
