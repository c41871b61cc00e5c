; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"EmitParticles"()

declare void @"IntegrateStep"()

declare void @"ResolveCollisions"()

declare void @"WriteParticle"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !15, !23, !32, !34 }
!wgc.spirv.entryPoints = !{ !35, !36, !37, !38 }
!wgc.experimental.tags = !{ !39, !40 }
!llvm.ident = !{ !41 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"EmitParticles", i32 0 }
!4 = !{ i32 4096, i32 1, i32 1 }
!5 = !{ i32 0, i32 5, i32 1 }
!6 = !{ i32 0, i32 16, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 32, i32 2, i32 4 }
!10 = !{ !"IntegrateStep", i32 0 }
!11 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 64, i32 0, !10 }
!12 = !{ !11 }
!13 = !{ i32 64, i32 1, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !12, i32 4, !13 }
!15 = !{ void ()* @"EmitParticles", !"EmitParticles", null, null, !14 }
!16 = !{ i32 1, i32 33, i32 2, !9 }
!17 = !{ !16 }
!18 = !{ !"ResolveCollisions", i32 0 }
!19 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 1, i32 0, !18 }
!20 = !{ !19 }
!21 = !{ i32 1, i32 1, i32 1 }
!22 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !17, i32 21, !20, i32 4, !21, i32 131072, i32 16, i32 131073, i32 1 }
!23 = !{ void ()* @"IntegrateStep", !"IntegrateStep", null, null, !22 }
!24 = !{ i32 1, i32 65, i32 2, !9, i32 3, i32 32 }
!25 = !{ !24 }
!26 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 32, i32 0, !10 }
!27 = !{ !"WriteParticle", i32 0 }
!28 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 0, i32 4, i32 0, i32 0, !27 }
!29 = !{ !26, !28 }
!30 = !{ i32 32, i32 1, i32 1 }
!31 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !18, i32 16, i32 -1, i32 20, !25, i32 21, !29, i32 4, !30 }
!32 = !{ void ()* @"ResolveCollisions", !"ResolveCollisions", null, null, !31 }
!33 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !27, i32 16, i32 -1, i32 20, !25, i32 4, !30 }
!34 = !{ void ()* @"WriteParticle", !"WriteParticle", null, null, !33 }
!35 = !{ void ()* @"EmitParticles", !"EmitParticles" }
!36 = !{ void ()* @"IntegrateStep", !"IntegrateStep" }
!37 = !{ void ()* @"ResolveCollisions", !"ResolveCollisions" }
!38 = !{ void ()* @"WriteParticle", !"WriteParticle" }
!39 = !{ !"NodeMaxLoopIterations", i32 131072 }
!40 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!41 = !{ !"wgc 0.1.0" }
