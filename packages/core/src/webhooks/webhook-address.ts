import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { AppError } from "../errors/app-error";

/**
 * Which addresses a webhook may not reach (docs/decisions.md "Webhooks"): loopback, private,
 * link-local, carrier-grade NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6
 * (IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry), so that an admin key
 * cannot make svc call into its own network, unless the operator allows it
 * (SVC_WEBHOOK_ALLOW_PRIVATE). Names are checked on what they resolve to, at registration and again
 * at every delivery (the connection goes to the address checked), so DNS cannot swap one in later.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address is one a webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return BLOCKED.check(mapped, "ipv4");
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, "ipv4");
  if (family === 6) return BLOCKED.check(address, "ipv6");
  return true;
}

/** The URL of an endpoint, checked for its form: http(s), a host, no credentials, a port that can be reached. 400s as AppError. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError("BAD_REQUEST", "The webhook URL is not a valid absolute URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("BAD_REQUEST", "A webhook URL must be http or https.");
  if (url.username || url.password) throw new AppError("BAD_REQUEST", "A webhook URL may not carry credentials.");
  if (url.port === "0") throw new AppError("BAD_REQUEST", "A webhook URL may not name port 0.");
  return url;
}

/** The host of a URL as an address or a name (IPv6 literals without their brackets). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Refuses (400) an endpoint whose host is, or resolves to, an address isPrivateAddress refuses,
 * unless private addresses are allowed. A name that does not resolve is refused too.
 */
export async function checkWebhookAddress(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const addresses = await resolveAll(hostOf(url)).catch(() => {
    throw new AppError("BAD_REQUEST", `The webhook host ${url.hostname} does not resolve.`);
  });
  if (addresses.length === 0 || addresses.some((address) => isPrivateAddress(address.address))) {
    throw new AppError(
      "BAD_REQUEST",
      `The webhook host ${url.hostname} is a loopback or private address; svc calls only public addresses unless SVC_WEBHOOK_ALLOW_PRIVATE is set.`,
    );
  }
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the delivery's HTTP request: resolves the name as usual and fails the connection
 * when an address it would use is private (unless allowed), so the socket only ever opens to an
 * address that was checked.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = !allowPrivate && addresses.some((address) => isPrivateAddress(address.address));
      if (refused || addresses.length === 0) {
        const failure: NodeJS.ErrnoException = new Error(`webhook host ${hostname} resolves to a private address`);
        failure.code = "EPRIVATEADDRESS";
        return callback(failure, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
