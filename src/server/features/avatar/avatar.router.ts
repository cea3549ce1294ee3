import { router } from "../../trpc/init";

/** tRPC `avatar` router (procedures arrive with the avatar issue). */
export const avatarRouter = router({});
