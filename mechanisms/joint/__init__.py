"""JOINT (Gillenwater et al., GJMR21): the exponential mechanism over k-sets and k-sequences, sampled by exact path counting."""

from .sequence import JointSequence
from .sets import Joint, JointLiteral

__all__ = ["Joint", "JointLiteral", "JointSequence"]
