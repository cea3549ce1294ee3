import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local fake of the S3 REST API (path-style) for the real AWS SDK: PutObject, GetObject (with
 * Range), HeadObject, DeleteObject, ListObjectsV2. Objects live in memory. Every request must be
 * SigV4-signed (Authorization header) like the real service; unsigned requests get 403.
 */
export async function startFakeS3(bucket: string) {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: { method: string; key: string; range?: string }[] = [];
  const xml = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/xml" });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const [, b, ...rest] = url.pathname.split("/");
    const key = decodeURIComponent(rest.join("/"));
    requests.push({ method: req.method ?? "", key, range: req.headers.range });
    if (!String(req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256"))
      return xml(res, 403, "<Error><Code>AccessDenied</Code></Error>");
    if (b !== bucket) return xml(res, 404, "<Error><Code>NoSuchBucket</Code></Error>");
    if (req.method === "PUT") {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      objects.set(key, {
        body: Buffer.concat(chunks),
        contentType: String(req.headers["content-type"] ?? "application/octet-stream"),
      });
      res.writeHead(200, { etag: '"fake"' });
      return res.end();
    }
    if (req.method === "GET" && !key && url.searchParams.get("list-type") === "2") {
      const prefix = url.searchParams.get("prefix") ?? "";
      const delimiter = url.searchParams.get("delimiter") ?? "";
      const matching = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      // with a delimiter, keys that hold it after the prefix are rolled up into CommonPrefixes
      // (up to and including its first occurrence), as S3 documents for ListObjectsV2
      const rolled = (k: string) => delimiter !== "" && k.slice(prefix.length).includes(delimiter);
      const keys = matching.filter((k) => !rolled(k));
      const common = [
        ...new Set(
          matching
            .filter(rolled)
            .map((k) =>
              k.slice(0, prefix.length + k.slice(prefix.length).indexOf(delimiter) + delimiter.length),
            ),
        ),
      ];
      const contents = keys
        .map((k) => `<Contents><Key>${k}</Key><Size>${objects.get(k)?.body.length}</Size></Contents>`)
        .join("");
      const prefixes = common.map((p) => `<CommonPrefixes><Prefix>${p}</Prefix></CommonPrefixes>`).join("");
      return xml(
        res,
        200,
        `<ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix>${delimiter ? `<Delimiter>${delimiter}</Delimiter>` : ""}<KeyCount>${keys.length + common.length}</KeyCount><IsTruncated>false</IsTruncated>${contents}${prefixes}</ListBucketResult>`,
      );
    }
    const obj = objects.get(key);
    if (req.method === "DELETE") {
      objects.delete(key);
      res.writeHead(204);
      return res.end();
    }
    if (!obj) {
      if (req.method === "HEAD") {
        res.writeHead(404);
        return res.end();
      }
      return xml(res, 404, `<Error><Code>NoSuchKey</Code><Key>${key}</Key></Error>`);
    }
    if (req.method === "HEAD") {
      res.writeHead(200, { "content-length": obj.body.length, "content-type": obj.contentType });
      return res.end();
    }
    if (req.method === "GET") {
      const m = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
      if (m) {
        const start = Number(m[1]);
        const end = Math.min(Number(m[2]), obj.body.length - 1);
        res.writeHead(206, {
          "content-length": end - start + 1,
          "content-type": obj.contentType,
          "content-range": `bytes ${start}-${end}/${obj.body.length}`,
        });
        return res.end(obj.body.subarray(start, end + 1));
      }
      res.writeHead(200, { "content-length": obj.body.length, "content-type": obj.contentType });
      return res.end(obj.body);
    }
    return xml(res, 405, "<Error><Code>MethodNotAllowed</Code></Error>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
