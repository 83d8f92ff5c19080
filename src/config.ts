/** Typed view of the deployment's vars and secrets, read once per env object. */
export interface GatewayConfig {
  environment: string;
  upstreamBaseUrl: string;
  upstreamTimeoutMs: number;
  upstreamApiKey: string;
  holdEnabled: boolean;
  qrMerchantIds: ReadonlySet<number>;
}

const cache = new WeakMap<object, GatewayConfig>();

function intVar(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function readConfig(env: Env): GatewayConfig {
  let config = cache.get(env);
  if (!config) {
    config = {
      environment: env.ENVIRONMENT,
      upstreamBaseUrl: env.UPSTREAM_BASE_URL.replace(/\/+$/, ""),
      upstreamTimeoutMs: intVar(env.UPSTREAM_TIMEOUT_MS, 10_000),
      upstreamApiKey: env.UPSTREAM_API_KEY ?? "",
      holdEnabled: env.HOLD_ENABLED === "true",
      qrMerchantIds: new Set(
        (env.QR_MERCHANT_IDS ?? "")
          .split(",")
          .map((s) => Number(s.trim()))
          .filter((n) => Number.isInteger(n) && n > 0),
      ),
    };
    cache.set(env, config);
  }
  return config;
}
