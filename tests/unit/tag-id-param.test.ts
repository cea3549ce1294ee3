import { describe, expect, it } from "vitest";
import { contactListQuery } from "../../src/server/features/api/api.v1.schemas";
import { listContactsSchema } from "../../src/server/features/crm/crm.schemas";

// GET /api/contacts `tag` and GET /api/v1/contacts `tag_id`: one rule (crm.schemas tagIdParam), each
// message naming the parameter as its route spells it.
const messageOf = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.success ? null : r.error?.issues[0]?.message;

describe("tag filter in a contacts list query", () => {
  for (const [param, schema] of [
    ["tag", listContactsSchema],
    ["tag_id", contactListQuery],
  ] as const) {
    it(`${param}: a tag's id in digits, refused with a sentence naming ${param}`, () => {
      const parsed = schema.safeParse({ [param]: "12" });
      expect(parsed.success && (parsed.data as Record<string, unknown>)[param]).toBe(12);
      expect(schema.safeParse({}).success).toBe(true);
      expect(messageOf(schema.safeParse({ [param]: "1e2" }))).toBe(
        `${param} must be a tag's id, written in digits (such as 12)`,
      );
      expect(messageOf(schema.safeParse({ [param]: 1.5 }))).toBe(`${param} must be a whole number`);
      expect(messageOf(schema.safeParse({ [param]: "0" }))).toBe(`${param} must be a tag's id`);
      expect(messageOf(schema.safeParse({ [param]: -3 }))).toBe(`${param} must be a tag's id`);
    });
  }
});
