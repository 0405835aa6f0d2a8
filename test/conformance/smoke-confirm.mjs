// Human confirmation end to end with the official TypeScript SDK v2 client
// (@modelcontextprotocol/client@2.4.0), whose multi-round-trip driver answers an
// input_required result through the client's registered elicitation handler and repeats the
// call with inputResponses and the byte-exact requestState (SEP-2322, protocol 2026-07-28).
//
//   node smoke-confirm.mjs http://127.0.0.1:PORT/mcp http://127.0.0.1:PORT2/mcp
//
// Only the second URL is used: an endpoint on the offline sandbox network with the default
// policy (MINDVAULT_CONFIRM=auto, a key generated for the process). What each case paid is
// counted twice, outside the endpoint's own answer: the wallet's USDC balance
// (mindvault_wallet_info) and the purchases the seller recorded (mindvault_purchase_history).
//
//   accept            → asked once, paid exactly once
//   decline           → CONFIRMATION_DECLINED, nothing paid
//   tampered state    → JSON-RPC -32602 with data.code CONFIRMATION_INVALID, nothing paid
//   price raised      → the price goes up between the two rounds: PRICE_CHANGED, nothing paid
//   no elicitation    → a client without the capability is never asked; it pays at once
//   legacy era        → a 2025-11-25 client is never asked, even with the capability; it pays at once
//
// Exits 0 when every assertion holds; otherwise prints "smoke-confirm: FAIL: ..." and exits 1.
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assert, run } from './smoke-lib.mjs';

const NAME = 'smoke-confirm';
const MODERN = '2026-07-28';
const RESOURCE = 'rustguide';
const PRICE = 15_000_000n; // 1.5 USDC in 7-decimal units: the sandbox's seeded price
const BUY = { name: 'mindvault_buy', arguments: { resourceId: RESOURCE, allowRepeat: true } };

// units parses a 7-decimal USDC string ("98.5000000") into units.
function units(decimal) {
  const [whole, frac = ''] = String(decimal).split('.');
  return BigInt(whole) * 10_000_000n + BigInt((frac + '0000000').slice(0, 7));
}

// connect opens a client: modern (pinned to 2026-07-28) or legacy (initialize, 2025-11-25),
// declaring form elicitation when onElicit is given and registering it as the handler.
async function connect(url, { legacy = false, onElicit } = {}) {
  const options = { capabilities: onElicit ? { elicitation: { form: {} } } : {} };
  if (!legacy) options.versionNegotiation = { mode: { pin: MODERN } };
  const client = new Client({ name: NAME, version: '0.0.0' }, options);
  if (onElicit) client.setRequestHandler('elicitation/create', async (request) => onElicit(request.params));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 10_000 });
  const era = client.getProtocolEra();
  assert(era === (legacy ? 'legacy' : 'modern'), `protocol era is ${JSON.stringify(era)}, want ${legacy ? 'legacy' : 'modern'}`);
  return client;
}

// ledger reads what the sandbox holds for the demo wallet: its USDC balance and how many
// purchases of RESOURCE the seller recorded.
async function ledger(client) {
  const w = await client.callTool({ name: 'mindvault_wallet_info', arguments: {} });
  assert(!w.isError, `mindvault_wallet_info failed: ${JSON.stringify(w.content)}`);
  const h = await client.callTool({ name: 'mindvault_purchase_history', arguments: { resourceId: RESOURCE, limit: 100 } });
  assert(!h.isError, `mindvault_purchase_history failed: ${JSON.stringify(h.content)}`);
  return { usdc: units(w.structuredContent.usdc.balance), bought: h.structuredContent.total };
}

// paid asserts how many purchases of RESOURCE happened between two ledger readings.
function paid(before, after, times, what) {
  assert(
    after.bought - before.bought === times && before.usdc - after.usdc === PRICE * BigInt(times),
    `${what}: ${after.bought - before.bought} purchases recorded and ${before.usdc - after.usdc} units spent, want ${times} and ${PRICE * BigInt(times)}`,
  );
}

// brief shows a result in a failure message without a bought file's bytes.
function brief(result) {
  return JSON.stringify(result).slice(0, 400);
}

function errorCode(result) {
  return result?._meta?.['io.mindvault/error']?.code;
}

async function main() {
  const url = process.argv[3];
  if (!url) {
    console.error(`usage: node ${NAME}.mjs http://127.0.0.1:PORT/mcp http://127.0.0.1:SANDBOX_PORT/mcp`);
    process.exit(2);
  }
  const done = [];
  const observer = await connect(url); // reads the ledger; never asked anything
  try {
    const profile = await observer.callTool({ name: 'mindvault_network_profile', arguments: {} });
    const api = profile.structuredContent?.urls?.mindvault;
    assert(profile.structuredContent?.network === 'sandbox' && api, `the second URL is not a sandbox endpoint: ${JSON.stringify(profile.structuredContent)}`);

    // accept: the handler sees the question once; the purchase is paid exactly once.
    {
      const asked = [];
      const client = await connect(url, { onElicit: (p) => (asked.push(p), { action: 'accept', content: { confirm: true } }) });
      const before = await ledger(observer);
      const r = await client.callTool(BUY);
      const after = await ledger(observer);
      await client.close();
      assert(!r.isError, `accepted purchase failed: ${brief(r)}`);
      assert(asked.length === 1, `the handler was asked ${asked.length} times, want 1`);
      const q = asked[0];
      assert(
        q.mode === 'form' && /Pay 1\.5 USDC to Northwind Labs \(G[A-Z0-9]{55}\) for "[^"]+" \(rustguide\) on sandbox\? Balance after: [0-9.]+ USDC\./.test(q.message),
        `the question is ${JSON.stringify(q.message)}`,
      );
      assert(q.requestedSchema?.properties?.confirm?.type === 'boolean', `requestedSchema ${JSON.stringify(q.requestedSchema)}`);
      assert(r.structuredContent?.settlement === 'confirmed', `settlement ${r.structuredContent?.settlement}`);
      paid(before, after, 1, 'accept');
      done.push('accept paid once');
    }

    // decline: an error result, nothing paid.
    {
      const client = await connect(url, { onElicit: () => ({ action: 'decline' }) });
      const before = await ledger(observer);
      const r = await client.callTool(BUY);
      const after = await ledger(observer);
      await client.close();
      assert(r.isError === true && errorCode(r) === 'CONFIRMATION_DECLINED', `decline: ${brief(r)}`);
      paid(before, after, 0, 'decline');
      done.push('decline paid nothing');
    }

    // tampered state: the client's manual mode hands back round 1; round 2 carries an altered
    // requestState and an acceptance. The endpoint answers -32602 and pays nothing.
    {
      const client = await connect(url, { onElicit: () => ({ action: 'accept', content: { confirm: true } }) });
      const before = await ledger(observer);
      const first = await client.callTool(BUY, { allowInputRequired: true });
      assert(first.resultType === 'input_required' && typeof first.requestState === 'string', `round 1: ${brief(first)}`);
      const s = first.requestState;
      const tampered = s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
      let caught;
      try {
        await client.callTool(
          { ...BUY, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: tampered },
          { allowInputRequired: true },
        );
      } catch (err) {
        caught = err;
      }
      const after = await ledger(observer);
      await client.close();
      assert(
        ProtocolError.isInstance(caught) && caught.code === -32602 && caught.data?.code === 'CONFIRMATION_INVALID',
        `tampered: want ProtocolError -32602 CONFIRMATION_INVALID, got ${caught?.constructor?.name} ${caught?.code} ${JSON.stringify(caught?.data)}: ${caught?.message}`,
      );
      paid(before, after, 0, 'tampered state');
      done.push('tampered state -32602, nothing paid');
    }

    // price raised between the rounds: while the user is being asked the seller raises the
    // price (the sandbox's test control); the acceptance was for 1.5 USDC, so nothing is paid.
    {
      const setPrice = async (price) => {
        const res = await fetch(`${api}/sandbox/resources/${RESOURCE}/price`, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ price }),
        });
        assert(res.ok, `setting the sandbox price answered HTTP ${res.status}`);
      };
      const client = await connect(url, { onElicit: async () => (await setPrice('2'), { action: 'accept', content: { confirm: true } }) });
      const before = await ledger(observer);
      let r;
      try {
        r = await client.callTool(BUY);
      } finally {
        await setPrice('1.50');
      }
      const after = await ledger(observer);
      await client.close();
      assert(r.isError === true && errorCode(r) === 'PRICE_CHANGED', `price raised: ${brief(r)}`);
      paid(before, after, 0, 'price raised');
      done.push('price raised refused');
    }

    // no elicitation: never asked, pays at once (the argument guards protect this client).
    {
      const client = await connect(url);
      const before = await ledger(observer);
      const r = await client.callTool(BUY, { allowInputRequired: true });
      const after = await ledger(observer);
      await client.close();
      assert(!r.isError && r.resultType !== 'input_required' && r.structuredContent?.resourceId === RESOURCE, `no elicitation: ${brief(r)}`);
      paid(before, after, 1, 'no elicitation');
      done.push('no elicitation not asked');
    }

    // legacy era: unchanged, never asked even though the client could answer.
    {
      const asked = [];
      const client = await connect(url, { legacy: true, onElicit: (p) => (asked.push(p), { action: 'decline' }) });
      const before = await ledger(observer);
      const r = await client.callTool(BUY);
      const after = await ledger(observer);
      await client.close();
      assert(!r.isError && asked.length === 0, `legacy: asked ${asked.length} times, result ${brief(r)}`);
      paid(before, after, 1, 'legacy era');
      done.push('legacy not asked');
    }
  } finally {
    await observer.close();
  }
  console.log(`${NAME}: ok (${done.join('; ')})`);
}

run(NAME, main);
