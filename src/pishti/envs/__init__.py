"""Research environments: Pishti for the PettingZoo, Gymnasium and OpenSpiel APIs.

Needs the ``research`` extra (``pip install pishti[research]``).  Importing
this package registers the Gymnasium environment ``PishtiEnv-v0``, so
``gymnasium.make("pishti.envs:PishtiEnv-v0")`` works; ``pishti.envs.pishti_v0``
is the PettingZoo environment and ``pishti.envs.openspiel_game`` registers
``python_pishti`` with ``pyspiel``.  See docs/research.md.
"""

try:
    from gymnasium.envs.registration import register, registry
except ImportError as exc:  # the core install has no gymnasium
    raise ImportError(
        "pishti.envs needs the research extra: pip install 'pishti[research]'"
    ) from exc

if "PishtiEnv-v0" not in registry:
    register(id="PishtiEnv-v0", entry_point="pishti.envs.gym_env:PishtiEnv")
