// The other side of package botauth's interop tests, with Cloudflare's
// web-bot-auth package.
//
//   node interop.mjs sign URL [SIGNATURE_AGENT]   prints the headers that sign a GET of URL
//   node interop.mjs verify URL                   reads the headers (JSON) on stdin, exits 0 when they verify
//
// Both use the test key of RFC 9421, appendix B.1.4.
import { signatureHeaders, verify } from 'web-bot-auth';
import { signerFromJWK, verifierFromJWK } from 'web-bot-auth/crypto';
import fs from 'node:fs';

const key = {
  kty: 'OKP', crv: 'Ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const [mode, url, agent] = process.argv.slice(2);

if (mode === 'sign') {
  const headers = agent ? { 'Signature-Agent': JSON.stringify(agent) } : {};
  const request = new Request(url, { headers });
  const now = new Date();
  const signed = await signatureHeaders(request, await signerFromJWK(key), {
    created: now, expires: new Date(now.getTime() + 300_000),
  });
  process.stdout.write(JSON.stringify({ ...headers, ...signed }));
} else if (mode === 'verify') {
  const headers = JSON.parse(fs.readFileSync(0, 'utf8'));
  const { d, ...pub } = key;
  try {
    await verify(new Request(url, { headers }), await verifierFromJWK(pub));
  } catch (e) {
    process.stderr.write(String(e));
    process.exit(1);
  }
} else {
  process.stderr.write('usage: node interop.mjs sign|verify URL [SIGNATURE_AGENT]\n');
  process.exit(2);
}
