import type { z } from "zod";
import { AppError } from "./errors";

/**
 * Turns a zod error into one sentence a person understands, e.g.
 * "email: Invalid email address; password: Too small".
 */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
      if (issue.code === "invalid_type" && issue.input === undefined) return `${where}is required`;
      return `${where}${issue.message}`;
    })
    .join("; ");
}

/**
 * Parses untrusted input with a zod schema.
 * @throws AppError BAD_REQUEST with a readable message when the input does not match.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  // reportInput: zod 4 leaves the offending value out of issues unless asked (needed for "is required")
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) {
    // `param`: the first offending field, for APIs that name it (issue 15: {error: {param}})
    const path = result.error.issues[0]?.path ?? [];
    throw new AppError(
      "BAD_REQUEST",
      describeZodError(result.error),
      path.length ? { param: path.join(".") } : undefined,
    );
  }
  return result.data;
}
