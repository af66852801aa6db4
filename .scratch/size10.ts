import { itemSize } from '../lib/dynamo';
const ev = { type: 'ItemAdded', data: { sku: 'sku-1', price: 12.5 } };
const c = { pk: 'Order#o-1', sk: 'e#0000000001', _df: 'Order', ts: 1767225600000, count: 10, events: Array.from({ length: 10 }, () => ev) };
console.log(itemSize(c), (28 / itemSize(c) * 100).toFixed(1));
