// Signs the demo account in on a running shop, puts two lines in its
// cart, and prints the session's Cookie header, for Lighthouse to audit
// the cart and checkout as the signed-in person sees them (audit.mjs,
// LIGHTHOUSE_COOKIE). It uses the pages' own forms, as a browser does.
//
//   node signin.mjs http://127.0.0.1:8080
const base = process.argv[2];

async function form(path, fields, cookie) {
  const res = await fetch(base + path, {
    method: 'POST', redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Origin': base, ...(cookie ? { 'Cookie': cookie } : {}) },
    body: new URLSearchParams(fields),
  });
  if (res.status !== 303) {
    throw new Error(`${path} ${fields._action}: ${res.status} ${await res.text()}`);
  }
  return res.headers.getSetCookie();
}

const set = await form('/login', { _action: 'signIn', email: 'demo@example.com', password: 'demo' });
const sid = set.map(c => c.split(';')[0]).find(c => c.startsWith('sid='));
if (!sid) {
  throw new Error('no session cookie after signing in: ' + set.join(', '));
}
await form('/products/heavyweight-tee', { _action: 'addToCart', sku: 'TEE-BLK-M', qty: '2' }, sid);
await form('/products/everyday-hoodie', { _action: 'addToCart', sku: 'HOOD-GRE-M', qty: '1' }, sid);
console.log(sid);
