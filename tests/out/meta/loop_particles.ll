; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.StructuredBuffer<ParticleState>" = type opaque
%"class.RWStructuredBuffer<ParticleState>" = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%SimulationConstants = type opaque

@ParticlesIn = external constant %"class.StructuredBuffer<ParticleState>"
@ParticlesOut = external constant %"class.RWStructuredBuffer<ParticleState>"
@SubstepCount = external constant %"class.RWStructuredBuffer<uint>"
@SimulationConstants = external constant %SimulationConstants

declare void @EmitParticles()

declare void @IntegrateStep()

declare void @ResolveCollisions()

declare void @WriteParticle()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!13, !14, !28, !36, !45}
!wgc.spirv.entryPoints = !{!47, !48, !49, !50}
!wgc.experimental.tags = !{!51, !52}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !7, !11, null}
!4 = !{!5}
!5 = !{i32 0, %"class.StructuredBuffer<ParticleState>"* @ParticlesIn, !"ParticlesIn", i32 0, i32 1, i32 1, i32 12, i32 0, !6}
!6 = !{i32 1, i32 32}
!7 = !{!8, !9}
!8 = !{i32 0, %"class.RWStructuredBuffer<ParticleState>"* @ParticlesOut, !"ParticlesOut", i32 0, i32 2, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!9 = !{i32 1, %"class.RWStructuredBuffer<uint>"* @SubstepCount, !"SubstepCount", i32 0, i32 3, i32 1, i32 12, i1 false, i1 false, i1 false, !10}
!10 = !{i32 1, i32 4}
!11 = !{!12}
!12 = !{i32 0, %SimulationConstants* @SimulationConstants, !"SimulationConstants", i32 0, i32 0, i32 1, i32 80, null}
!13 = !{null, !"", null, !3, null}
!14 = !{void ()* @EmitParticles, !"EmitParticles", null, null, !15}
!15 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !16, i32 16, i32 -1, i32 22, !17, i32 20, !18, i32 21, !22, i32 4, !26, i32 5, !27}
!16 = !{!"EmitParticles", i32 0}
!17 = !{i32 4096, i32 1, i32 1}
!18 = !{!19}
!19 = !{i32 1, i32 97, i32 2, !20}
!20 = !{i32 0, i32 16, i32 1, !21, i32 2, i32 4}
!21 = !{i32 0, i32 5, i32 1}
!22 = !{!23}
!23 = !{i32 1, i32 6, i32 2, !24, i32 3, i32 64, i32 0, !25}
!24 = !{i32 0, i32 32, i32 2, i32 4}
!25 = !{!"IntegrateStep", i32 0}
!26 = !{i32 64, i32 1, i32 1}
!27 = !{i32 0}
!28 = !{void ()* @IntegrateStep, !"IntegrateStep", null, null, !29}
!29 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !25, i32 16, i32 -1, i32 20, !30, i32 21, !32, i32 4, !35, i32 131072, i32 16, i32 131073, i32 1, i32 5, !27}
!30 = !{!31}
!31 = !{i32 1, i32 33, i32 2, !24}
!32 = !{!33}
!33 = !{i32 1, i32 6, i32 2, !24, i32 3, i32 1, i32 0, !34}
!34 = !{!"ResolveCollisions", i32 0}
!35 = !{i32 1, i32 1, i32 1}
!36 = !{void ()* @ResolveCollisions, !"ResolveCollisions", null, null, !37}
!37 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !34, i32 16, i32 -1, i32 20, !38, i32 21, !40, i32 4, !44, i32 5, !27}
!38 = !{!39}
!39 = !{i32 1, i32 65, i32 2, !24, i32 3, i32 32}
!40 = !{!41, !42}
!41 = !{i32 1, i32 6, i32 2, !24, i32 3, i32 32, i32 0, !25}
!42 = !{i32 1, i32 6, i32 2, !24, i32 3, i32 0, i32 4, i32 0, i32 0, !43}
!43 = !{!"WriteParticle", i32 0}
!44 = !{i32 32, i32 1, i32 1}
!45 = !{void ()* @WriteParticle, !"WriteParticle", null, null, !46}
!46 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !43, i32 16, i32 -1, i32 20, !38, i32 4, !44, i32 5, !27}
!47 = !{void ()* @EmitParticles, !"EmitParticles"}
!48 = !{void ()* @IntegrateStep, !"IntegrateStep"}
!49 = !{void ()* @ResolveCollisions, !"ResolveCollisions"}
!50 = !{void ()* @WriteParticle, !"WriteParticle"}
!51 = !{!"NodeMaxLoopIterations", i32 131072}
!52 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
