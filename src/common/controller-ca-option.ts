/**
 * `--controller-ca FILE`: the PEM CA bundle to trust for the controller's certificate, one name on the router,
 * the agent and the admin CLI. Each still accepts its old spelling (`--ca` on the agent and admin CLI) as an
 * alias; both given with different files is refused rather than one silently winning.
 */
export function controllerCaFile(
  values: { 'controller-ca'?: string; ca?: string },
  refuse: (message: string) => Error,
): string | undefined {
  const named = values['controller-ca'];
  const alias = values.ca;
  if (named !== undefined && alias !== undefined && named !== alias)
    throw refuse(`--controller-ca and its alias --ca name different files ('${named}', '${alias}')`);
  return named ?? alias;
}
