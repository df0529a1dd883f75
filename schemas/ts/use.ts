// Type-checks the generated declarations against documents of each kind.
import type { ActionDescriptor, Call, Delta, Graph, SiteIndex } from '../affordances';
import { MEDIA_TYPE, VERSION } from '../affordances';

const descriptor: ActionDescriptor = {
  name: 'addToCart', description: 'Put a size in the cart', expose: 'public', available: true,
  input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }, effects: ['cart'],
};
export const graph: Graph = {
  v: VERSION, page: '/products/heavyweight-tee', route: '/products/[slug]',
  entities: { product: { slug: 'heavyweight-tee' } }, actions: [descriptor], nav: [{ to: '/cart', label: 'Cart' }],
};
export const call: Call = { action: 'addToCart', input: { sku: 'TEE-BLK-M' } };
export const delta: Delta = {
  ok: false, error: { code: 'invalid_input', message: 'bad', issues: [{ path: '/sku', message: 'is required', keyword: 'required' }] },
};
export const index: SiteIndex = { v: '0', routes: [{ route: '/products/[slug]', actions: [descriptor] }], auth: ['cookie', 'bearer'] };
export const mediaType: 'application/vnd.affordances+json' = MEDIA_TYPE;
