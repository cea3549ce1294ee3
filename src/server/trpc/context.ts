import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context";

export interface TrpcContext extends AppContext {
  req: FastifyRequest;
  res: FastifyReply;
  auth: FastifyRequest["auth"];
  ip: string;
}

export function createTrpcContextFactory(app: AppContext) {
  return ({ req, res }: { req: FastifyRequest; res: FastifyReply }): TrpcContext => ({
    ...app,
    req,
    res,
    auth: req.auth,
    ip: req.clientIp,
  });
}
