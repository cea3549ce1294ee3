import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/**
 * Answers a CSV download streamed from `chunks` (CSV text, e.g. a service's async generator of
 * pages). The first chunk is awaited before the 200 goes out, so the generator's own refusals (a
 * query's 400, a campaign's 404) still answer as errors; the rest streams. Headers: `text/csv;
 * charset=utf-8`, `attachment; filename="<name>-<YYYY-MM-DD>.csv"` (the UTC day), `no-store`.
 * Used by the contacts export and the campaign results.
 */
export async function sendCsvDownload(
  reply: FastifyReply,
  chunks: AsyncGenerator<string>,
  name: string,
): Promise<FastifyReply> {
  const first = await chunks.next();
  const stream = Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      yield* chunks;
    })(),
  );
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${name}-${day}.csv"`)
    .header("cache-control", "no-store")
    .send(stream);
}
