import { listenToChannel, type ChannelListener } from "@svc/db";
import type { Principal } from "./principal";

/** Changes to a key (revocation, scope) are announced here, with the key's hash as payload. */
export const API_KEY_CHANGES_CHANNEL = "svc_api_key_changes";
const ENTRY_TTL_MS = 60_000;

/**
 * Remembers resolved keys so that a request costs no database round trip for its credential. It is
 * trusted only while its LISTEN connection is up: every change to a key is NOTIFYed (by the
 * functions that change keys, in any process) and evicts the entry here, so a revoked key is refused
 * at once. While the listener is down, every lookup goes to the database.
 */
export class ApiKeyCache {
  private static readonly inProcess = new Set<ApiKeyCache>();
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();
  private live = false;
  private listener: ChannelListener | undefined;

  /** Evicts a key from every cache of this process right away (notifications follow for others). */
  static evictEverywhere(hashedKey: string): void {
    for (const cache of ApiKeyCache.inProcess) cache.evict(hashedKey);
  }

  /** `applicationName` labels the listener's connection in pg_stat_activity. */
  async listen(databaseUrl: string, applicationName?: string): Promise<void> {
    ApiKeyCache.inProcess.add(this);
    this.listener = await listenToChannel({
      databaseUrl,
      applicationName,
      channel: API_KEY_CHANGES_CHANNEL,
      onNotification: (hashedKey) => this.evict(hashedKey),
      onLive: (live) => {
        this.live = live;
        if (!live) this.entries.clear();
      },
    });
  }

  async close(): Promise<void> {
    ApiKeyCache.inProcess.delete(this);
    await this.listener?.close();
  }

  get(hashedKey: string): Principal | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(hashedKey);
    if (!entry || entry.expiresAt < Date.now()) return undefined;
    return entry.principal;
  }

  set(hashedKey: string, principal: Principal): void {
    if (this.live) this.entries.set(hashedKey, { principal, expiresAt: Date.now() + ENTRY_TTL_MS });
  }

  evict(hashedKey: string): void {
    this.entries.delete(hashedKey);
  }
}
