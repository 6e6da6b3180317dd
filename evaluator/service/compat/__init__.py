"""Other services' HTTP shapes that ``mcevaluate serve`` answers, so that their clients call it
unchanged: SandboxFusion's ``/run_code`` and ``/submit`` (:mod:`.sandbox_fusion`, its request
models in :mod:`.fusion_requests`), Piston's ``/api/v2`` (:mod:`.piston`), open-r1's E2B
router (:mod:`.e2b`), and the RL frameworks' reward endpoints: OpenRLHF's ``/get_reward``
(:mod:`.openrlhf`), slime's ``/slime/reward`` (:mod:`.slime`) and NeMo-Gym's ``/verify``
(:mod:`.nemo_gym`).

Each is a handler ``(service, body) -> (answer, log line)`` over the generic server's pieces
(:mod:`evaluator.service.graders`, :mod:`evaluator.service.errors`,
:mod:`evaluator.service.cancel`); only :mod:`evaluator.service.app`, which mounts them as
routes, imports them (tests/test_layering.py holds the rule).
"""
