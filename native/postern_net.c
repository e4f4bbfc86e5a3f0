/*
 * Two socket facts Node has no API for, both read with getsockopt on a connected socket's descriptor:
 *  - the destination a program originally connected to, before an nftables `redirect` sent the connection to
 *    the agent's intercept listener (SO_ORIGINAL_DST / IP6T_SO_ORIGINAL_DST, from the connection's conntrack
 *    entry);
 *  - the credentials of the process at the other end of a Unix socket (SO_PEERCRED), so the privileged agent
 *    service answers only the users it may.
 * Node-API only: one build serves every Node and Electron version.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>

#ifdef __linux__
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/netfilter_ipv4.h>
#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif
#endif

static napi_value throw_errno(napi_env env, const char *what) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static int fd_argument(napi_env env, napi_callback_info info, int *fd) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], fd) != napi_ok || *fd < 0) {
    napi_throw_type_error(env, NULL, "a socket descriptor (a non-negative integer) is required");
    return 0;
  }
  return 1;
}

static void set_number(napi_env env, napi_value object, const char *name, double value) {
  napi_value v;
  napi_create_double(env, value, &v);
  napi_set_named_property(env, object, name, v);
}

static napi_value original_destination(napi_env env, napi_callback_info info) {
  int fd;
  if (!fd_argument(env, info, &fd)) return NULL;
#ifdef __linux__
  struct sockaddr_storage local;
  socklen_t length = sizeof local;
  if (getsockname(fd, (struct sockaddr *)&local, &length) != 0) return throw_errno(env, "getsockname");
  struct sockaddr_storage original;
  memset(&original, 0, sizeof original);
  length = sizeof original;
  int level = local.ss_family == AF_INET6 ? SOL_IPV6 : SOL_IP;
  int option = local.ss_family == AF_INET6 ? IP6T_SO_ORIGINAL_DST : SO_ORIGINAL_DST;
  if (getsockopt(fd, level, option, &original, &length) != 0) {
    /* No conntrack entry with a rewritten destination: the connection was not redirected. */
    if (errno == ENOENT || errno == ENOPROTOOPT) {
      napi_value nothing;
      napi_get_null(env, &nothing);
      return nothing;
    }
    return throw_errno(env, "getsockopt(SO_ORIGINAL_DST)");
  }
  char text[INET6_ADDRSTRLEN];
  int port, family;
  if (original.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&original;
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
    family = 6;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&original;
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
    family = 4;
  }
  napi_value result, address;
  napi_create_object(env, &result);
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &address);
  napi_set_named_property(env, result, "address", address);
  set_number(env, result, "port", port);
  set_number(env, result, "family", family);
  return result;
#else
  napi_throw_error(env, NULL, "original destinations are read on Linux only");
  return NULL;
#endif
}

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  int fd;
  if (!fd_argument(env, info, &fd)) return NULL;
#ifdef __linux__
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
    return throw_errno(env, "getsockopt(SO_PEERCRED)");
  napi_value result;
  napi_create_object(env, &result);
  set_number(env, result, "pid", credentials.pid);
  set_number(env, result, "uid", credentials.uid);
  set_number(env, result, "gid", credentials.gid);
  return result;
#else
  napi_throw_error(env, NULL, "peer credentials are read on Linux only");
  return NULL;
#endif
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "originalDestination", NAPI_AUTO_LENGTH, original_destination, NULL, &fn);
  napi_set_named_property(env, exports, "originalDestination", fn);
  napi_create_function(env, "peerCredentials", NAPI_AUTO_LENGTH, peer_credentials, NULL, &fn);
  napi_set_named_property(env, exports, "peerCredentials", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
