import { createRequire } from "node:module";
import path from "node:path";
import { cruise, type IConfiguration, type ICruiseResult } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/**
 * Runs the import rules of `.dependency-cruiser.cjs` (what `npm run check:deps` enforces) on the
 * fixture tree tests/fixtures/deps/, which holds one deliberately bad import per rule beside allowed
 * ones, and checks that exactly the bad ones are reported.
 */
const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, "../..");
const config = require(path.join(root, ".dependency-cruiser.cjs")) as IConfiguration;
const fixtureDir = path.join(root, "tests/fixtures/deps");

async function violations() {
  const { output } = await cruise(
    ["src"],
    {
      validate: true,
      ruleSet: { forbidden: config.forbidden },
      baseDir: fixtureDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: "(^|/)node_modules/" },
      enhancedResolveOptions: config.options?.enhancedResolveOptions,
      outputType: "json",
    },
    { extensions: [".ts", ".js"] } as never,
  );
  const result = (typeof output === "string" ? JSON.parse(output) : output) as ICruiseResult;
  return result.summary.violations
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
    .sort()
    .map((s) => s.replace(/ -> .*node_modules\/stripe\/.*/, " -> stripe"));
}

describe("import rules (.dependency-cruiser.cjs)", () => {
  it("reports each bad import of the fixture and nothing else", async () => {
    const found = await violations();
    expect(found).toEqual(
      [
        // a feature's queries from another feature
        "feature-internals-private: src/server/features/beta/beta.service.ts -> src/server/features/alpha/alpha.queries.ts",
        // a feature's handlers from another feature
        "feature-internals-private: src/server/features/beta/beta.handlers.ts -> src/server/features/alpha/alpha.handlers.ts",
        // handlers from outside features, other than the registry
        "handlers-only-from-registry: src/server/http/routes.ts -> src/server/features/alpha/alpha.handlers.ts",
        // queries from outside features
        "queries-only-inside-feature: src/server/http/routes.ts -> src/server/features/alpha/alpha.queries.ts",
        // a vendor SDK outside providers/ (a type-only import)
        "vendor-sdk-only-in-providers: src/server/features/gamma/gamma.service.ts -> stripe",
        // a cycle whose one edge is a type-only import (reported once, at that edge)
        "no-circular: src/server/features/delta/delta.contract.ts -> src/server/features/delta/delta.worker.ts",
      ].sort(),
    );
  }, 120_000);
});
