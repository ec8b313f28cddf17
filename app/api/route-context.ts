import type { Store } from '../store/database.ts';
import type { RequestLike } from './request-origin.ts';

/** What a route of the v1 API is given by the server that registers it. */
export interface RouteContext {
  store: Store;
  now: () => Date;
  /** The absolute URL of the current request, for Link headers. */
  requestUrl(request: RequestLike & { url: string }): URL;
}
