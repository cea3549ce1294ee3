import type { FastifyRequest } from "fastify";
import { pathRecordId } from "../lib/validate";

/**
 * The route's path parameter `name` (default `:id`) as a record id: lib/validate pathRecordId, so a
 * segment that names no record (letters, `0x10`, 0, 20 digits) is the unknown id's 404,
 * "<what> not found" ("Campaign not found"), as /api/v1 answers it.
 * @throws AppError NOT_FOUND `${what} not found`.
 */
export function pathId(req: FastifyRequest, what: string, name = "id"): number {
  return pathRecordId((req.params as Record<string, string | undefined>)[name], what);
}
