import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { WEBHOOK_EVENT_DATA } from "../../src/server/features/api/api.v1.schemas";
import { testEventData, WEBHOOK_EVENT_EXAMPLES } from "../../src/server/features/webhooks/webhooks.examples";
import { WEBHOOK_EVENT_TYPES } from "../../src/server/features/webhooks/webhooks.schemas";

// A test event carries its type's example (webhooks.examples): a receiver tries its parsing on it, so
// each example must have exactly the fields the real event's data has (api.v1.schemas
// WEBHOOK_EVENT_DATA, the OpenAPI document's webhooks), with their types.

describe("webhook event examples", () => {
  it.each([...WEBHOOK_EVENT_TYPES])(
    "%s: the example has every field of the event's data and no other",
    (type) => {
      const schema = WEBHOOK_EVENT_DATA[type] as z.ZodObject;
      const example = WEBHOOK_EVENT_EXAMPLES[type];
      expect(() => schema.strict().parse(example)).not.toThrow();
      const required = Object.entries(schema.shape)
        .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
        .map(([key]) => key);
      for (const key of required) expect(example, key).toHaveProperty(key);
      // a test event is the example marked test: true
      expect(testEventData(type)).toEqual({ ...example, test: true });
    },
  );
});
