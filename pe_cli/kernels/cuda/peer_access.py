"""Whether one GPU can read another's memory directly (CUDA peer access): asked once per pair of
devices (runtime.py's ``Device`` objects) and enabled where it can; runtime.copy_to then copies between
them as a peer copy, else through the host."""

_peer = {}


def peer_ok(src, dst):
    key = (src.id, dst.id)
    ok = _peer.get(key)
    if ok is None:
        try:
            ok = dst.context.can_access_peer(src.id)
            if ok:
                with dst:
                    dst.context.enable_peer_access(src.context.handle)
        except Exception:
            ok = False
        _peer[key] = ok
    return ok
