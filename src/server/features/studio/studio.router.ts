import { router } from "../../trpc/init";

/** tRPC `studio` router (procedures arrive with the studio issue). */
export const studioRouter = router({});
