import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireUser } from "../../http/auth";
import { createAvatarVideo, getAvatarVideoStatus } from "./avatar.service";

/**
 * REST adapters of the avatar feature (spec section 7):
 * - `POST /api/videos/create/did|heygen|local` JSON {script} -> {success, provider, videoId, status, error}
 *   (HTTP 502 with status `error` and the vendor's reason when the vendor refused the video)
 * - `GET /api/videos/status/{provider}/{videoId}` -> {success, videoUrl, status, error, ...}
 */
export async function avatarRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post<{ Params: { provider: string } }>(
    "/api/videos/create/:provider",
    { bodyLimit: 64 * 1024 },
    async (req, reply) => {
      const user = requireUser(req);
      const video = await createAvatarVideo(ctx, user.id, req.params.provider, req.body ?? {});
      const failed = video.status === "error";
      return reply.status(failed ? 502 : 200).send({
        success: !failed,
        provider: video.provider,
        videoId: video.videoId,
        vendorVideoId: video.vendorVideoId,
        status: video.status,
        videoUrl: video.videoUrl,
        error: video.error,
      });
    },
  );

  app.get<{ Params: { provider: string; videoId: string } }>(
    "/api/videos/status/:provider/:videoId",
    async (req) => {
      const user = requireUser(req);
      const video = await getAvatarVideoStatus(ctx, user.id, req.params);
      return {
        success: true,
        provider: video.provider,
        videoId: video.videoId,
        status: video.status,
        videoUrl: video.videoUrl,
        mediaId: video.mediaId,
        error: video.error,
      };
    },
  );
}
