// The read actions over a stream's commit layer: its head (`streamVersion`), its events (`iterate`, `read`,
// `readEvents` for an id already formatted) and its instances.
export { instances, iterate, read, readEvents, streamVersion } from './read';
