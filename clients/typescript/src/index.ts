export { createDocgateClient, DocgateError, SERVICES } from './client.js'
export type {
  Call,
  CallOptions,
  ClientOptions,
  DocgateClient,
  Envelope,
  Health,
  Item,
  Params,
  Query,
  Schemas,
  Service,
  Tokened,
} from './client.js'
export { basicAuthorization } from './credentials.js'
export { EnvelopeScanner, EnvelopeStream } from './envelope-stream.js'
export type { components, operations, paths } from './schema.js'
