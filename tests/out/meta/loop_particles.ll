; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.StructuredBuffer<ParticleState>" = type opaque
%"class.RWStructuredBuffer<ParticleState>" = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%"SimulationConstants" = type opaque
declare void @"EmitParticles"()

declare void @"IntegrateStep"()

declare void @"ResolveCollisions"()

declare void @"WriteParticle"()

@"ParticlesIn" = external constant %"class.StructuredBuffer<ParticleState>"
@"ParticlesOut" = external constant %"class.RWStructuredBuffer<ParticleState>"
@"SubstepCount" = external constant %"class.RWStructuredBuffer<uint>"
@"SimulationConstants" = external constant %"SimulationConstants"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !11 }
!dx.entryPoints = !{ !12, !25, !33, !42, !44 }
!wgc.spirv.entryPoints = !{ !45, !46, !47, !48 }
!wgc.experimental.tags = !{ !49, !50 }
!llvm.ident = !{ !51 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 32 }
!3 = !{ i32 0, %"class.StructuredBuffer<ParticleState>"* @"ParticlesIn", !"ParticlesIn", i32 0, i32 1, i32 1, i32 12, i32 0, !2 }
!4 = !{ !3 }
!5 = !{ i32 0, %"class.RWStructuredBuffer<ParticleState>"* @"ParticlesOut", !"ParticlesOut", i32 0, i32 2, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!6 = !{ i32 1, i32 4 }
!7 = !{ i32 1, %"class.RWStructuredBuffer<uint>"* @"SubstepCount", !"SubstepCount", i32 0, i32 3, i32 1, i32 12, i1 false, i1 false, i1 false, !6 }
!8 = !{ !5, !7 }
!9 = !{ i32 0, %"SimulationConstants"* @"SimulationConstants", !"SimulationConstants", i32 0, i32 0, i32 1, i32 80, null }
!10 = !{ !9 }
!11 = !{ !4, !8, !10, null }
!12 = !{ null, !"", null, !11, null }
!13 = !{ !"EmitParticles", i32 0 }
!14 = !{ i32 4096, i32 1, i32 1 }
!15 = !{ i32 0, i32 5, i32 1 }
!16 = !{ i32 0, i32 16, i32 1, !15, i32 2, i32 4 }
!17 = !{ i32 1, i32 97, i32 2, !16 }
!18 = !{ !17 }
!19 = !{ i32 0, i32 32, i32 2, i32 4 }
!20 = !{ !"IntegrateStep", i32 0 }
!21 = !{ i32 1, i32 6, i32 2, !19, i32 3, i32 64, i32 0, !20 }
!22 = !{ !21 }
!23 = !{ i32 64, i32 1, i32 1 }
!24 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !13, i32 16, i32 -1, i32 22, !14, i32 20, !18, i32 21, !22, i32 4, !23 }
!25 = !{ void ()* @"EmitParticles", !"EmitParticles", null, null, !24 }
!26 = !{ i32 1, i32 33, i32 2, !19 }
!27 = !{ !26 }
!28 = !{ !"ResolveCollisions", i32 0 }
!29 = !{ i32 1, i32 6, i32 2, !19, i32 3, i32 1, i32 0, !28 }
!30 = !{ !29 }
!31 = !{ i32 1, i32 1, i32 1 }
!32 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !20, i32 16, i32 -1, i32 20, !27, i32 21, !30, i32 4, !31, i32 131072, i32 16, i32 131073, i32 1 }
!33 = !{ void ()* @"IntegrateStep", !"IntegrateStep", null, null, !32 }
!34 = !{ i32 1, i32 65, i32 2, !19, i32 3, i32 32 }
!35 = !{ !34 }
!36 = !{ i32 1, i32 6, i32 2, !19, i32 3, i32 32, i32 0, !20 }
!37 = !{ !"WriteParticle", i32 0 }
!38 = !{ i32 1, i32 6, i32 2, !19, i32 3, i32 0, i32 4, i32 0, i32 0, !37 }
!39 = !{ !36, !38 }
!40 = !{ i32 32, i32 1, i32 1 }
!41 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !28, i32 16, i32 -1, i32 20, !35, i32 21, !39, i32 4, !40 }
!42 = !{ void ()* @"ResolveCollisions", !"ResolveCollisions", null, null, !41 }
!43 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !37, i32 16, i32 -1, i32 20, !35, i32 4, !40 }
!44 = !{ void ()* @"WriteParticle", !"WriteParticle", null, null, !43 }
!45 = !{ void ()* @"EmitParticles", !"EmitParticles" }
!46 = !{ void ()* @"IntegrateStep", !"IntegrateStep" }
!47 = !{ void ()* @"ResolveCollisions", !"ResolveCollisions" }
!48 = !{ void ()* @"WriteParticle", !"WriteParticle" }
!49 = !{ !"NodeMaxLoopIterations", i32 131072 }
!50 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!51 = !{ !"wgc 0.1.0" }
